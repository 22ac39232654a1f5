import { flag, hasMethods, integer } from '../../checks/fields.js';
import { expected } from '../../checks/leaf.js';
import { strict } from '../../checks/object.js';
import { union } from '../../checks/union.js';

/** `enableReflection` of a workflow: true/false or `{ maxAttempts, agent }` (the reflecting agent, duck-typed). */
export const workflowReflectionSchema = union(
  [
    flag,
    strict(
      { maxAttempts: integer(1).optional(), agent: expected('an Agent', (v) => hasMethods(v, 'prompt', 'reflect')).optional() },
      'an object like { maxAttempts: 2, agent }',
    ),
  ],
  'true, false or { maxAttempts, agent }',
);
