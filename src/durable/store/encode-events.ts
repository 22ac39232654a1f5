import { UsageError } from '../../errors/groundswell-error.js';
import { encodeJson } from './encode-json.js';

/** Each event of an `appendEvents` batch as JSON, all checked before any is written (an error names the event). */
export function encodeEvents(runId: string, events: readonly unknown[]): string[] {
  if (!Array.isArray(events)) throw new UsageError('appendEvents takes an array of events.');
  return events.map((event, i) => encodeJson(event, `Event ${i} of run "${runId}"`));
}
