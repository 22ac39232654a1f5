import { flag, func, integer } from '../../checks/fields.js';
import { strict } from '../../checks/object.js';

/** `errorMergeStrategy` of a workflow or a `@Task`. */
export const errorMergeSchema = strict(
  { enabled: flag, maxMergeDepth: integer(0).optional(), combine: func.optional() },
  'an object like { enabled: true, maxMergeDepth?, combine? }',
);
