import { array } from '../../checks/collections.js';
import { union } from '../../checks/union.js';
import { IGNORABLE_CACHE_KEY_PARTS } from '../../cache/cache-key-parts.js';
import { expected, flag, oneOf, strict } from '../../checks/config-fields.js';

// Custom (non-aborting) leaf checks, so a wrong option inside the object is reported by its own
// path instead of only "true, false or { ignore, refresh }".
const ignore = expected<unknown[]>('an array of key part names', Array.isArray).pipe(array(oneOf(IGNORABLE_CACHE_KEY_PARTS), 'an array of key part names'));
const refresh = expected<boolean>('true or false', (v) => typeof v === 'boolean');

/** `enableCache` of an agent, a prompt or a call: true/false or `{ ignore?, refresh? }`. */
export const cacheSettingSchema = union(
  [flag, strict({ ignore: ignore.optional(), refresh: refresh.optional() }, "an object like { ignore: ['ancestry'] }")],
  'true, false or { ignore, refresh }',
);
