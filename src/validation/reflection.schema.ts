import { z } from 'zod';
import { expected, flag, hasMethods, integer, strict } from './fields.js';

const attempts = integer(1).optional();

/** `enableReflection` of a prompt, an agent or a call: true/false or `{ maxAttempts }`. */
export const reflectionSettingSchema = z.union([flag, strict({ maxAttempts: attempts }, 'an object like { maxAttempts: 2 }')], {
  error: 'true, false or { maxAttempts }',
});

/** `enableReflection` of a workflow, which may also name the reflecting agent. */
export const workflowReflectionSchema = z.union(
  [
    flag,
    strict(
      { maxAttempts: attempts, agent: expected('an Agent', (v) => hasMethods(v, 'prompt', 'reflect')).optional() },
      'an object like { maxAttempts: 2, agent }',
    ),
  ],
  { error: 'true, false or { maxAttempts, agent }' },
);
