/**
 * Work handed, one job at a time, to code that runs somewhere else: a workflow's step or executor
 * serves the queue, so each job runs in that workflow's async context (its scope, its node), while
 * the bench's own loop decides what runs when and times it (W3, W13).
 */
export interface JobQueue<C> {
  /** Run by the host: takes jobs, one after the other, until `close()`. */
  serve(context: C): Promise<void>;
  /** Hands `job` to the host; settles when it finished (rejects with what it threw). */
  run(job: (context: C) => unknown): Promise<void>;
  /** The host's `serve` returns once the job in hand, if any, has finished. */
  close(): void;
}

interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(reason: unknown): void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (reason: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

export function jobQueue<C>(): JobQueue<C> {
  // `request` carries the next job (undefined: stop); `reply` settles when that job did.
  let request = deferred<((context: C) => unknown) | undefined>();
  let reply = deferred<void>();
  return {
    async serve(context) {
      for (;;) {
        const job = await request.promise;
        request = deferred();
        if (job === undefined) return;
        const done = reply;
        reply = deferred();
        try {
          await job(context);
          done.resolve();
        } catch (error) {
          done.reject(error);
        }
      }
    },
    run(job) {
      const done = reply.promise;
      request.resolve(job);
      return done;
    },
    close() {
      request.resolve(undefined);
    },
  };
}
