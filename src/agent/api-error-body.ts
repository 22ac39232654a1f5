/** Enough for any error body the API sends; a longer body is not one, and is not read further. */
const BODY_LIMIT = 64 * 1024;

/** The API's own account of a failed request, from its error body. */
export interface ApiErrorBody {
  /** `rate_limit_error`, `overloaded_error`, ... */
  readonly type?: string;
  readonly message?: string;
}

/**
 * The `error.type` and `error.message` of an Anthropic error body (`{"type":"error","error":{...}}`),
 * read from a clone so the SDK still reads the response itself. Empty when the body is not that
 * JSON (a proxy's HTML page), is longer than 64 KiB, or cannot be read.
 */
export async function apiErrorBody(response: Response): Promise<ApiErrorBody> {
  try {
    const text = await readStart(response.clone(), BODY_LIMIT);
    if (text === undefined) return {};
    const body: unknown = JSON.parse(text);
    const error = typeof body === 'object' && body !== null ? (body as { error?: unknown }).error : undefined;
    if (typeof error !== 'object' || error === null) return {};
    const { type, message } = error as { type?: unknown; message?: unknown };
    return { ...(typeof type === 'string' ? { type } : {}), ...(typeof message === 'string' && message !== '' ? { message } : {}) };
  } catch {
    // An unreadable body only means the event says less: the SDK reports the failure itself.
    return {};
  }
}

/** The whole body as text, or undefined once it is longer than `limit` bytes (the rest is not read). */
async function readStart(response: Response, limit: number): Promise<string | undefined> {
  const reader = response.body?.getReader();
  if (reader === undefined) return '';
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      return undefined;
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}
