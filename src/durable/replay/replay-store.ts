import type { MemoryRunStore } from '../memory/memory-store.js';
import type { AppendedEvents, Lease, LoadedRun, RunStore, SettledStep } from '../store/run-store.js';
import type { CallRecord, SignalRecord, StepRecord } from '../store/stored-records.js';

/** What a replay starts its run from: the recording's calls, signals and stored arguments. */
export interface ReplaySeed {
  /** The steps marked `recorded`, which a replay serves. */
  readonly steps: readonly StepRecord[];
  readonly calls: readonly CallRecord[];
  readonly signals: readonly SignalRecord[];
  readonly data: Readonly<Record<string, unknown>>;
}

/**
 * The store a replay runs on: `memory` (made from `seed`), except that the run's tree and events
 * are not kept and its first load hands over the seed's records as they are. Nothing reads the
 * tree or events (the store is dropped when the replay ends), `memory` checked the records when it
 * was made, and encoding the one and parsing copies of the other took a good part of a long
 * replay's time. Steps are still written: that is where a step value JSON cannot hold is refused,
 * as it is live.
 */
export function replayStore(memory: MemoryRunStore, runId: string, seed: ReplaySeed): RunStore {
  let events = 0;
  let loaded = false;
  const dropped = (count: number): AppendedEvents => {
    events += count;
    return { first: events - count + 1, last: events };
  };
  const overrides: Partial<RunStore> = {
    loadRun: async (id: string): Promise<LoadedRun> => {
      const run = loaded || id !== runId ? undefined : await memory.getRun(id);
      if (run === undefined) return memory.loadRun(id);
      loaded = true;
      return { run, steps: [...seed.steps], calls: [...seed.calls], signals: [...seed.signals], data: { ...seed.data } };
    },
    putTree: async () => undefined,
    appendEvents: async (_runId: string, batch: readonly unknown[]) => dropped(batch.length),
    settleStep: async (id: string, step: StepRecord, batch: readonly unknown[], fence?: Lease): Promise<SettledStep> => ({
      written: await memory.putStep(id, step, fence),
      events: dropped(batch.length),
    }),
  };
  return new Proxy(memory, {
    get(target, name) {
      if (Object.hasOwn(overrides, name)) return overrides[name as keyof RunStore];
      const value: unknown = Reflect.get(target, name, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  }) as RunStore;
}
