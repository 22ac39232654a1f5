import { integer, oneOf, strict } from '../../checks/config-fields.js';

const contextBudgetSchema = strict(
  { maxChars: integer(1), strategy: oneOf(['drop', 'summarize']).optional(), keepTurns: integer(1).optional() },
  'an object like { maxChars: 40000, strategy?, keepTurns? }',
);

/** `trajectory` of an agent (the environment-variable fallbacks are checked where they are read). */
export const trajectoryOptionsSchema = strict(
  {
    checkpoint: oneOf(['off', 'shadow', 'adaptive', 'always']).optional(),
    grounding: oneOf(['off', 'initial', 'adaptive']).optional(),
    maxChars: integer(200).optional(),
    contextBudget: contextBudgetSchema.optional(),
  },
  'an object like { checkpoint: "adaptive" }',
);
