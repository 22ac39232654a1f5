/**
 * Signals for provider requests that must stop when a long-lived signal (a run's) aborts.
 *
 * The AI SDK providers' HTTP client adds an abort listener to the signal of every request and
 * drops it only when the request is collected, so requests given the run's own signal would pile
 * listeners on it. A fresh linked `AbortSignal` per request avoids that but costs 4-7 µs on
 * Node 20. So one linked signal serves up to `SHARED_USES` requests, then a new one takes over;
 * a retired one unlinks from the outer signal once its last request has ended.
 */

/** Requests per linked signal: bounds the client's listeners that wait for collection on it. */
export const SHARED_USES = 64;

/** The signal to give one request, and what to call when that request has ended. */
export interface RequestSignal {
  readonly signal: AbortSignal;
  release(): void;
}

interface Link {
  readonly controller: AbortController;
  readonly onAbort: () => void;
  uses: number;
  inFlight: number;
}

const current = new WeakMap<AbortSignal, Link>();

/** A signal that aborts, with the outer signal's reason, when `outer` aborts. */
export function requestSignal(outer: AbortSignal): RequestSignal {
  let link = current.get(outer);
  if (link === undefined || link.uses >= SHARED_USES || link.controller.signal.aborted) {
    if (link !== undefined && link.inFlight === 0) outer.removeEventListener('abort', link.onAbort);
    link = open(outer);
    current.set(outer, link);
  }
  link.uses += 1;
  link.inFlight += 1;
  const used = link;
  let released = false;
  return {
    signal: used.controller.signal,
    release() {
      if (released) return;
      released = true;
      used.inFlight -= 1;
      if (used.inFlight === 0 && current.get(outer) !== used) outer.removeEventListener('abort', used.onAbort);
    },
  };
}

function open(outer: AbortSignal): Link {
  const controller = new AbortController();
  const onAbort = (): void => controller.abort(outer.reason);
  if (outer.aborted) controller.abort(outer.reason);
  else outer.addEventListener('abort', onAbort, { once: true });
  return { controller, onAbort, uses: 0, inFlight: 0 };
}
