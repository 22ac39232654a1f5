import type {
  Clock,
  LogEntry,
  Workflow,
  WorkflowEvent,
  WorkflowEventType,
  WorkflowNode,
  WorkflowObserver,
} from 'groundswell';

interface PendingSleep {
  due: number;
  resolve: () => void;
}

export interface FakeClockOptions {
  /** Epoch ms of the first reading (default 2024-01-01T00:00:00.000Z). */
  start?: number;
  /** `sleep` advances time and resolves at once (default true); false: sleeps wait for `advance`. */
  autoAdvance?: boolean;
  /** Added to the time after every `now()` reading, so timestamps strictly increase (default 0). */
  tick?: number;
}

/**
 * A deterministic Clock: time only moves when the test says so (or by `tick` per reading), every
 * requested sleep is recorded, and sleeps honour their AbortSignal like the system clock does.
 */
export class FakeClock implements Clock {
  readonly sleeps: number[] = [];
  private time: number;
  private pending: PendingSleep[] = [];

  constructor(private readonly options: FakeClockOptions = {}) {
    this.time = options.start ?? Date.UTC(2024, 0, 1);
  }

  now(): number {
    const t = this.time;
    this.time += this.options.tick ?? 0;
    return t;
  }

  /** Time as it is now, without ticking. */
  peek(): number {
    return this.time;
  }

  get pendingSleeps(): number {
    return this.pending.length;
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    this.sleeps.push(ms);
    return new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      if (this.options.autoAdvance !== false) {
        this.time += ms;
        resolve();
        return;
      }
      const entry: PendingSleep = {
        due: this.time + ms,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
      };
      const onAbort = (): void => {
        this.pending = this.pending.filter((p) => p !== entry);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.push(entry);
    });
  }

  /** Moves time forward and wakes every sleep that is due. */
  advance(ms: number): void {
    this.time += ms;
    const due = this.pending.filter((p) => p.due <= this.time);
    this.pending = this.pending.filter((p) => p.due > this.time);
    for (const p of due) p.resolve();
  }
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Lets every queued promise callback and timer of this turn run. */
export async function flush(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** The value, or a failed assertion naming what was missing. */
export function must<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`expected ${what} to exist`);
  return value;
}

export function ofType<K extends WorkflowEventType>(
  events: readonly WorkflowEvent[],
  type: K,
): Array<Extract<WorkflowEvent, { type: K }>> {
  return events.filter((e): e is Extract<WorkflowEvent, { type: K }> => e.type === type);
}

/** Every node of a subtree, parents first (iterative). */
export function allNodes(root: WorkflowNode): WorkflowNode[] {
  const out: WorkflowNode[] = [];
  const stack: WorkflowNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as WorkflowNode;
    out.push(node);
    for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i] as WorkflowNode);
  }
  return out;
}

export function findByName(root: WorkflowNode, name: string): WorkflowNode {
  return must(
    allNodes(root).find((n) => n.name === name),
    `node "${name}"`,
  );
}

export interface Shape {
  name: string;
  kind: string;
  children: Shape[];
}

/** Names and kinds of a subtree, for comparing tree structure with toEqual. */
export function shape(node: WorkflowNode): Shape {
  return { name: node.name, kind: node.kind, children: node.children.map(shape) };
}

export interface Recording {
  events: WorkflowEvent[];
  logs: LogEntry[];
  states: WorkflowNode[];
  /** One line per delivery, in delivery order: `event:type:name`, `log:message`, `state:name`. */
  sequence: string[];
  observer: WorkflowObserver;
  unsubscribe(): void;
}

export function eventLabel(e: WorkflowEvent): string {
  return 'name' in e ? `${e.type}:${e.name}` : e.type;
}

/** Adds an observer to `root` that records everything it is told. */
export function record(root: Workflow): Recording {
  const rec: Omit<Recording, 'unsubscribe' | 'observer'> = { events: [], logs: [], states: [], sequence: [] };
  const observer: WorkflowObserver = {
    onEvent: (e) => {
      rec.events.push(e);
      rec.sequence.push(`event:${eventLabel(e)}`);
    },
    onLog: (l) => {
      rec.logs.push(l);
      rec.sequence.push(`log:${l.message}`);
    },
    onStateUpdated: (n) => {
      rec.states.push(n);
      rec.sequence.push(`state:${n.name}`);
    },
  };
  const unsubscribe = root.addObserver(observer);
  return { ...rec, observer, unsubscribe };
}
