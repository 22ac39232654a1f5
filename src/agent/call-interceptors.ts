import { journalInterceptor } from './call-journal.js';
import { cacheInterceptor } from './interceptors/cache-interceptor.js';
import { hooksInterceptor } from './interceptors/hooks-interceptor.js';
import { treeInterceptor } from './interceptors/tree-interceptor.js';
import { composeInterceptors, type PromptHandler, type PromptInterceptor } from './prompt-call.js';
import { runModel } from './run-model.js';

// Added by the composition root (reflection) between the hooks and the cache.
const registered: PromptInterceptor[] = [];
let composed: PromptHandler | undefined;

/**
 * Adds an interceptor around every later agent call, inside the tree, journal and hooks and
 * outside the cache (so each retry it makes is a fresh attempt through the cache). Later
 * registrations sit inside earlier ones. Returns the handle that removes it again.
 */
export function registerCallInterceptor(interceptor: PromptInterceptor): () => void {
  if (!registered.includes(interceptor)) {
    registered.push(interceptor);
    composed = undefined;
  }
  return () => {
    const at = registered.indexOf(interceptor);
    if (at < 0) return;
    registered.splice(at, 1);
    composed = undefined;
  };
}

/**
 * The chain one call goes through: tree outermost (a cache hit is still a node), the durable
 * journal, hooks, the registered interceptors, then the cache around the model. Composed once
 * per change of the registrations, not per call.
 */
export function callPipeline(): PromptHandler {
  return (composed ??= composeInterceptors(
    [treeInterceptor, journalInterceptor, hooksInterceptor, ...registered, cacheInterceptor],
    runModel,
  ));
}
