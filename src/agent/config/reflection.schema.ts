import { union } from '../../checks/union.js';
import { flag, integer, strict } from '../../checks/config-fields.js';

/** `enableReflection` of a prompt, an agent or a call: true/false or `{ maxAttempts }`. */
export const reflectionSettingSchema = union([flag, strict({ maxAttempts: integer(1).optional() }, 'an object like { maxAttempts: 2 }')],
  'true, false or { maxAttempts }',
);
