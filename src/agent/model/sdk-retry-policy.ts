import type Anthropic from '@anthropic-ai/sdk';

/** The SDK's error classes, taken from the client's own class (the user's copy of the SDK may not be ours). */
export interface SdkErrorClasses {
  readonly APIError: typeof Anthropic.APIError;
  readonly APIConnectionError: typeof Anthropic.APIConnectionError;
  readonly APIUserAbortError: typeof Anthropic.APIUserAbortError;
}

/** What one failed attempt was, as the SDK's retry policy sees it. */
export type AttemptFailure =
  | { readonly kind: 'http'; readonly status: number; readonly headers: Headers | undefined; readonly body: unknown }
  | { readonly kind: 'connection'; readonly cause: unknown }
  /** Not an attempt that failed on the wire (an abort, an answer that could not be read): passed on as it is. */
  | { readonly kind: 'other' };

/** Classifies an error one `maxRetries: 0` request threw. */
export function attemptFailure(error: unknown, classes: SdkErrorClasses): AttemptFailure {
  if (error instanceof classes.APIUserAbortError) return OTHER;
  // Timeouts are connection errors too (APIConnectionTimeoutError extends it).
  if (error instanceof classes.APIConnectionError) return { kind: 'connection', cause: error.cause ?? error };
  if (error instanceof classes.APIError && typeof error.status === 'number') {
    return { kind: 'http', status: error.status, headers: error.headers ?? undefined, body: error.error };
  }
  return OTHER;
}

const OTHER: AttemptFailure = Object.freeze({ kind: 'other' });

/**
 * How long to wait before the next attempt, or undefined when the failure is not retried: the
 * Anthropic SDK's own policy (its `shouldRetry` and `retryRequest`), so a call that counts its
 * attempts itself retries exactly when and after as long as the SDK would have. `retriesLeft`
 * counts down from the client's `maxRetries`. `refresh401`: the client signs requests with a cached
 * token it has just dropped on this 401 (the SDK then retries once with a fresh one).
 */
export function retryWaitMs(failure: AttemptFailure, retriesLeft: number, maxRetries: number, refresh401 = false): number | undefined {
  if (retriesLeft <= 0 || failure.kind === 'other') return undefined;
  if (failure.kind === 'http') {
    if (!(refresh401 && failure.status === 401) && !shouldRetry(failure.status, failure.headers)) return undefined;
    const asked = askedWaitMs(failure.headers);
    if (asked !== undefined && asked > 0 && asked <= 2 ** 31 - 1) return asked;
  }
  return defaultWaitMs(retriesLeft, maxRetries);
}

/** `x-should-retry` wins; else timeouts, lock timeouts, rate limits and server errors are retried. */
function shouldRetry(status: number, headers: Headers | undefined): boolean {
  const header = headers?.get('x-should-retry');
  if (header === 'true') return true;
  if (header === 'false') return false;
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/** `retry-after-ms`, else `retry-after` (seconds, or an HTTP date). */
function askedWaitMs(headers: Headers | undefined): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms) {
    const value = parseFloat(ms);
    if (!Number.isNaN(value) && value !== 0) return value;
  }
  const after = headers?.get('retry-after');
  if (!after) return undefined;
  const seconds = parseFloat(after);
  return Number.isNaN(seconds) ? Date.parse(after) - Date.now() : seconds * 1000;
}

/** Half a second, doubling per retry up to 8 s, less up to 25% jitter. */
function defaultWaitMs(retriesLeft: number, maxRetries: number): number {
  const seconds = Math.min(0.5 * 2 ** (maxRetries - retriesLeft), 8);
  return seconds * (1 - Math.random() * 0.25) * 1000;
}
