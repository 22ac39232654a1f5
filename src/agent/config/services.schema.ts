import { expected, hasMethods, isObject } from '../../checks/config-fields.js';

/** An Anthropic client (or the offline kit's): what the agent calls is `messages.create`. */
export const clientSchema = expected('an Anthropic client (an object with messages.create)', (v) =>
  isObject(v) && hasMethods(v['messages'], 'create'),
);

/** The `Cache` interface of the cache stores. */
export const cacheSchema = expected('a Cache store (get, set, bust, bustPrefix and metrics methods, e.g. new LruCacheStore())', (v) =>
  hasMethods(v, 'get', 'set', 'bust', 'bustPrefix', 'metrics'),
);
