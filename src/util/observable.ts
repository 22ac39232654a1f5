export interface Observer<T> {
  next(value: T): void;
  error?(error: unknown): void;
  complete?(): void;
}

export interface Subscription {
  unsubscribe(): void;
}

type Subscribe<T> = (observer: Observer<T>) => (() => void) | void;

/** A minimal push stream: `subscribe` takes a partial observer or a bare `next` function. */
export class Observable<T> {
  constructor(private readonly onSubscribe: Subscribe<T>) {}

  subscribe(observer: Partial<Observer<T>> | ((value: T) => void)): Subscription {
    const target = typeof observer === 'function' ? { next: observer } : observer;
    let closed = false;
    const safe: Observer<T> = {
      next: (value) => {
        if (!closed) target.next?.(value);
      },
      error: (error) => {
        if (closed) return;
        closed = true;
        target.error?.(error);
      },
      complete: () => {
        if (closed) return;
        closed = true;
        target.complete?.();
      },
    };
    const teardown = this.onSubscribe(safe);
    return {
      unsubscribe: () => {
        closed = true;
        teardown?.();
      },
    };
  }
}
