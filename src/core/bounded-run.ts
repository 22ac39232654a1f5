/** Where one job of a bounded run ended. */
export type JobOutcome<R> = { readonly status: 'fulfilled'; readonly value: R } | { readonly status: 'rejected'; readonly error: unknown };

export interface BoundedRun<R> {
  /** By job index; `undefined` for a job that never started. */
  readonly outcomes: Array<JobOutcome<R> | undefined>;
  /** The errors of failed jobs, in the order they failed. */
  readonly failures: readonly unknown[];
}

/**
 * Starts jobs `0 .. count-1` in index order with at most `limit` running at once, and resolves
 * once every started job has settled; it never rejects. `stop(failures)` is asked before each
 * start: once it says yes, no further job starts (the rest stay `undefined`).
 */
export async function runBounded<R>(
  count: number,
  limit: number,
  start: (index: number) => R | PromiseLike<R>,
  stop: (failures: number) => boolean,
): Promise<BoundedRun<R>> {
  const outcomes = new Array<JobOutcome<R> | undefined>(count).fill(undefined);
  const failures: unknown[] = [];
  let next = 0;
  // Each lane takes the next index when its job settles, so starts stay in order and at most
  // `limit` jobs are ever in flight; a loop rather than recursion keeps the stack flat.
  const lane = async (): Promise<void> => {
    while (next < count && !stop(failures.length)) {
      const index = next;
      next += 1;
      try {
        outcomes[index] = { status: 'fulfilled', value: await start(index) };
      } catch (error) {
        outcomes[index] = { status: 'rejected', error };
        failures.push(error);
      }
    }
  };
  const lanes: Promise<void>[] = [];
  for (let i = 0; i < Math.min(limit, count); i += 1) lanes.push(lane());
  await Promise.all(lanes);
  return { outcomes, failures };
}
