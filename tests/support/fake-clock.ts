import type { Clock } from 'groundswell';

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
 * A deterministic Clock: time only moves when the test says so (`advance(ms)`, e.g. from a step
 * body to make durations exact) or by `tick` per reading. Every requested sleep is recorded in
 * `sleeps`; by default a sleep moves time forward and resolves at once instead of waiting, and
 * sleeps honour their AbortSignal like the system clock does.
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

  /** How many sleeps are waiting for `advance` (only with `autoAdvance: false`). */
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
