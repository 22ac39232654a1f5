/**
 * The floors: for each workload, a minimal hand-written implementation of the same semantics
 * without groundswell. Targets are ratios of a workload to its floor, measured in the same
 * process (interleaved run by run), because absolute times on these machines are noisy.
 *
 *  - W1 floor: the same N sequential awaited steps, each the same work a step must do: its async
 *    body runs in its own `AsyncLocalStorage.run` scope (code inside a step can ask which step it
 *    is in, and work it starts mounts there), and a start and an end event object (type, step name,
 *    run name, timestamp; the end event also the duration) go to an observer callback.
 *  - Events-only floor (info, the W1 floor before it entered a scope per step): the same steps
 *    with a synchronous body inside one `AsyncLocalStorage.run`: the price of an event alone.
 *  - W2 floor: the same fan-out, N concurrent child runs of 10 awaited such steps each. Each child
 *    does what a child workflow must: it runs in its own `AsyncLocalStorage.run` scope (work it
 *    starts mounts under it) and emits a start and an end event; each step's async body runs in
 *    its own scope, as in the W1 floor.
 *  - W3 floors, per event: for `ctx.step` with a sync body, the W1 floor's steps with a sync
 *    body (in its own scope, as `ctx.step` gives its body one), a start and an end event each; for
 *    `logger.info` and `snapshotState()`, which emit synchronously, a loop of `getStore()` (an
 *    emit must know where it is) plus one event object handed to an observer callback.
 *  - W5 floor: `cacheKey()` of the same prompt input + `get` on an `LRUCache` (lru-cache, the
 *    library under `LruCacheStore`) holding the answer; one awaited async call per lookup. Inside
 *    a workflow, the same plus what the agent tells an observer there: a start, a cache-hit and
 *    an end event, the call reading the scope it runs in.
 *  - W6 floor: the same call by hand (in w6): the SDK client's `messages.create()` with the same
 *    request body and the run's signal, the answer's JSON parsed and validated by the same schema,
 *    and a start and an end event to an observer; the bare `messages.create()` prints as info.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { LRUCache } from 'lru-cache';
import { cacheKey, type CacheKeyInput } from 'groundswell/cache';

export interface FloorEvent {
  readonly type: 'stepStart' | 'stepEnd' | 'workflowStart' | 'workflowEnd' | 'emit' | 'callStart' | 'cacheHit' | 'callEnd';
  readonly name: string;
  readonly run: string | undefined;
  readonly timestamp: number;
  readonly duration?: number;
}

export interface FloorObserver {
  onEvent(event: FloorEvent): void;
}

interface FloorScope {
  readonly name: string;
}

const storage = new AsyncLocalStorage<FloorScope>();

/** One step: read the scope, start event, the body, end event. */
async function floorStep<T>(name: string, body: () => T, observer: FloorObserver): Promise<T> {
  const run = storage.getStore()?.name;
  const timestamp = performance.now();
  observer.onEvent({ type: 'stepStart', name, run, timestamp });
  const value = body();
  const end = performance.now();
  observer.onEvent({ type: 'stepEnd', name, run, timestamp: end, duration: end - timestamp });
  return value;
}

/**
 * One step as a step must run: its body inside its own scope, read by the body. What the body
 * returns is awaited only when it is a promise: awaiting a plain value costs a promise and a
 * turn (with the scope's hooks on, more than an async body does), which a hand-written step
 * that may get a sync body avoids this way.
 */
async function scopedStep<T>(name: string, body: () => T | Promise<T>, observer: FloorObserver): Promise<T> {
  const run = storage.getStore()?.name;
  const timestamp = performance.now();
  observer.onEvent({ type: 'stepStart', name, run, timestamp });
  const returned = storage.run({ name }, body);
  const value = returned instanceof Promise ? await returned : returned;
  const end = performance.now();
  observer.onEvent({ type: 'stepEnd', name, run, timestamp: end, duration: end - timestamp });
  return value;
}

/** W1 floor: `steps` sequential awaited steps, each an async body in its own scope, 2 events per step. */
export function floorScopedSteps(steps: number, observer: FloorObserver): Promise<number> {
  return storage.run({ name: 'floor-steps' }, async () => {
    let count = 0;
    const body = async (): Promise<number> => (storage.getStore() === undefined ? count : ++count);
    for (let i = 0; i < steps; i += 1) await scopedStep('tick', body, observer);
    return count;
  });
}

/** W3's `ctx.step` floor: `steps` sequential awaited steps, each a sync body in its own scope, 2 events per step. */
export function floorScopedSyncSteps(steps: number, observer: FloorObserver): Promise<number> {
  return storage.run({ name: 'floor-sync-steps' }, async () => {
    let count = 0;
    const body = (): number => (storage.getStore() === undefined ? count : ++count);
    for (let i = 0; i < steps; i += 1) await scopedStep('tick', body, observer);
    return count;
  });
}

/** W3's floor for synchronous emits: `calls` times, read the scope and hand one event to the observer. */
export function floorSyncEmits(calls: number, observer: FloorObserver): number {
  return storage.run({ name: 'floor-emits' }, () => {
    for (let i = 0; i < calls; i += 1) {
      observer.onEvent({ type: 'emit', name: 'tick', run: storage.getStore()?.name, timestamp: performance.now() });
    }
    return calls;
  });
}

/** The events-only floor (info): `steps` sequential awaited steps in one AsyncLocalStorage.run, 2 events per step. */
export function floorSteps(steps: number, observer: FloorObserver): Promise<number> {
  return storage.run({ name: 'floor-steps' }, async () => {
    let count = 0;
    const body = (): number => ++count;
    for (let i = 0; i < steps; i += 1) await floorStep('tick', body, observer);
    return count;
  });
}

/**
 * W2 floor: `children` concurrent child runs of `stepsPerChild` awaited steps. Each child runs in
 * its own scope with a start and an end event; each step's async body in its own scope.
 */
export function floorFanOut(children: number, stepsPerChild: number, observer: FloorObserver): Promise<number[]> {
  return storage.run({ name: 'floor-fan-out' }, () => {
    const run = storage.getStore()?.name;
    const child = async (name: string): Promise<number> => {
      const timestamp = performance.now();
      observer.onEvent({ type: 'workflowStart', name, run, timestamp });
      let count = 0;
      const body = async (): Promise<number> => (storage.getStore() === undefined ? count : ++count);
      for (let i = 0; i < stepsPerChild; i += 1) await scopedStep('work', body, observer);
      const end = performance.now();
      observer.onEvent({ type: 'workflowEnd', name, run, timestamp: end, duration: end - timestamp });
      return count;
    };
    return Promise.all(Array.from({ length: children }, (_, i) => {
      const name = `child-${i}`;
      return storage.run({ name }, () => child(name));
    }));
  });
}

/** W5 floor: a cache keyed like the agent's, holding `answer` under the prompt's key. */
export function floorCache(input: CacheKeyInput, namespace: string, answer: unknown): () => Promise<unknown> {
  const lru = new LRUCache<string, { value: unknown }>({ max: 1_000 });
  lru.set(cacheKey(input, namespace), { value: answer });
  return async () => lru.get(cacheKey(input, namespace))?.value;
}

/**
 * W5's floor inside a workflow: the same lookup, plus the events the agent emits on a hit there
 * (a start, a cache hit, an end with the duration), the call reading the scope it runs in.
 */
export function floorCacheWithEvents(input: CacheKeyInput, namespace: string, answer: unknown, observer: FloorObserver): () => Promise<unknown> {
  const lru = new LRUCache<string, { value: unknown }>({ max: 1_000 });
  lru.set(cacheKey(input, namespace), { value: answer });
  return async () => {
    const run = storage.getStore()?.name;
    const timestamp = performance.now();
    observer.onEvent({ type: 'callStart', name: namespace, run, timestamp });
    const value = lru.get(cacheKey(input, namespace))?.value;
    observer.onEvent({ type: 'cacheHit', name: namespace, run, timestamp: performance.now() });
    const end = performance.now();
    observer.onEvent({ type: 'callEnd', name: namespace, run, timestamp: end, duration: end - timestamp });
    return value;
  };
}

/** Runs `loop` inside a scope of the floors' own, as a workflow step runs its body in its scope. */
export function inFloorScope<T>(name: string, loop: () => Promise<T>): Promise<T> {
  return storage.run({ name }, loop);
}
