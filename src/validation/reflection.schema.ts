import { union } from '../util/check/union.js';
import { flag, integer, strict } from './fields.js';

/** `enableReflection` of a prompt, an agent or a call: true/false or `{ maxAttempts }`. */
export const reflectionSettingSchema = union([flag, strict({ maxAttempts: integer(1).optional() }, 'an object like { maxAttempts: 2 }')],
  'true, false or { maxAttempts }',
);
