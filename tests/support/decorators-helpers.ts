import type { Clock, Workflow, WorkflowEvent, WorkflowEventType, WorkflowNode } from 'groundswell';

export type DecoratorMode = 'tc39' | 'legacy';

/** The mode the current vitest run compiles decorators in (set by `test.env` in the two configs). */
export function decoratorMode(): DecoratorMode {
  const mode = process.env['GROUNDSWELL_DECORATOR_MODE'];
  if (mode !== 'tc39' && mode !== 'legacy') {
    throw new Error(`GROUNDSWELL_DECORATOR_MODE must be 'tc39' or 'legacy', got ${String(mode)}`);
  }
  return mode;
}

/**
 * A clock that only moves when told: `advance(ms)` from a step body makes durations exact, and
 * `sleep(ms)` (retry backoff) records the delay and moves time forward instead of waiting.
 */
export class ManualClock implements Clock {
  time = 1_000;
  readonly sleeps: number[] = [];

  now(): number {
    return this.time;
  }

  advance(ms: number): void {
    this.time += ms;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    this.sleeps.push(ms);
    this.time += ms;
    return Promise.resolve();
  }
}

export type EventOf<K extends WorkflowEventType> = Extract<WorkflowEvent, { type: K }>;

/** Records every event of a root workflow's subtree. */
export function recordEvents(root: Workflow): WorkflowEvent[] {
  const events: WorkflowEvent[] = [];
  root.addObserver({ onEvent: (event) => events.push(event) });
  return events;
}

export function eventsOfType<K extends WorkflowEventType>(events: readonly WorkflowEvent[], type: K): EventOf<K>[] {
  return events.filter((event): event is EventOf<K> => event.type === type);
}

/** The only child node of `parent` with this name (fails loudly when missing or ambiguous). */
export function childNamed(parent: WorkflowNode, name: string): WorkflowNode {
  const found = parent.children.filter((child) => child.name === name);
  if (found.length !== 1) {
    throw new Error(`expected one child "${name}" under "${parent.name}", found ${found.length}`);
  }
  return found[0] as WorkflowNode;
}

/** Runs `fn` and returns what it threw (or rejected with); fails when it did not throw. */
export async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

/** A promise with its resolve function, for ordering concurrent work without timers. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
