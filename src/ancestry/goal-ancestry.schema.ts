import { strict, text } from '../checks/config-fields.js';

export const goalAncestrySchema = strict(
  { mission: text.optional(), project: text.optional(), goal: text.optional(), task: text.optional() },
  'an object like { mission?, project?, goal?, task? }',
);
