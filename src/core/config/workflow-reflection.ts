import { flag, hasMethods, integer } from '../../util/check/fields.js';
import { expected } from '../../util/check/leaf.js';
import { strict } from '../../util/check/object.js';
import { union } from '../../util/check/union.js';

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
