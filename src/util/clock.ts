/** Time source for timestamps, durations and retry backoff; inject a fake one in tests. */
export interface Clock {
  /** Milliseconds since the epoch; may be fractional. */
  now(): number;
  /** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

// Read once: `performance.timeOrigin` is a native getter, and now() runs several times per step.
const origin = performance.timeOrigin;

export const systemClock: Clock = {
  now: () => origin + performance.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};
