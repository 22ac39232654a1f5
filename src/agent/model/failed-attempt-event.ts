import type { EventPayload } from '../../types/events.js';
import { errorMessage } from '../../util/describe.js';
import { isRecord } from '../../util/is-record.js';
import type { AttemptFailure } from './sdk-retry-policy.js';

/**
 * The `apiError` event of one failed HTTP attempt. The API's own message and type come from its
 * error body (`{"type":"error","error":{"type","message"}}`, which the SDK has parsed already);
 * without them the status says it; a connection failure is reported with no status and the
 * underlying error's message.
 */
export function failedAttemptEvent(failure: Exclude<AttemptFailure, { kind: 'other' }>, agentName: string, attempt: number): EventPayload {
  if (failure.kind === 'connection') return { type: 'apiError', agentName, attempt, status: null, message: errorMessage(failure.cause) };
  const error = isRecord(failure.body) ? failure.body['error'] : undefined;
  const type = isRecord(error) && typeof error['type'] === 'string' ? error['type'] : undefined;
  const message = isRecord(error) && typeof error['message'] === 'string' && error['message'] !== '' ? error['message'] : `HTTP ${failure.status}`;
  return { type: 'apiError', agentName, attempt, status: failure.status, message, ...(type !== undefined ? { errorType: type } : {}) };
}
