import { errorMessage, isError, safeString } from '../../util/describe.js';
import { isRecord } from '../../util/is-record.js';

/**
 * What an `error` part of a provider stream says. Providers put the server's error body there as a
 * plain object (`{ message, type, code }` of an OpenAI-compatible server), which prints as
 * `[object Object]`: its message and type are what the non-streamed path's error shows.
 */
export function streamErrorText(error: unknown): string {
  if (isError(error)) return errorMessage(error);
  try {
    if (!isRecord(error)) return errorMessage(error);
    const { message, type, code } = error;
    const kind = [type, code].filter((part): part is string => typeof part === 'string' && part !== '');
    const detail = [...new Set(kind)].join(', ');
    if (typeof message === 'string' && message !== '') return detail === '' ? message : `${message} (${detail})`;
    return bodyText(error);
  } catch {
    // A body whose fields cannot be read (a throwing getter): this runs on a failure path.
    return safeString(error);
  }
}

/** An error object without a message, as JSON (bounded: a server may send anything). */
function bodyText(error: Record<string, unknown>): string {
  try {
    const text = JSON.stringify(error);
    return text.length > 500 ? `${text.slice(0, 500)}…` : text;
  } catch {
    return safeString(error);
  }
}
