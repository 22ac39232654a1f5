import type { RecordedRequest } from './recorded-request.js';
import { isRecord } from '../util/is-record.js';

/** Anything with a zod-style `parse`, so the kit does not tie callers to one zod version. */
export interface DataSchema<T> {
  parse(value: unknown): T;
}

// An agent sends a prompt as `user`, then (when there is data) a blank line and the data as
// pretty JSON in a `<data>` block, all in the first user message. Anchored at the end so a `<data>`
// mentioned in the prompt's own text is not mistaken for the block.
const DATA_BLOCK = /\n\n<data>\n([\s\S]*)\n<\/data>$/;

/**
 * The prompt's `data` as the agent sent it (the JSON in the first user message's `<data>` block);
 * `{}` when the prompt had none. With a schema (a zod schema, say) the data is parsed by it, so a
 * responder gets a typed value and a wrong guess about the data fails loudly.
 */
export function requestData(request: RecordedRequest): Record<string, unknown>;
export function requestData<T>(request: RecordedRequest, schema: DataSchema<T>): T;
export function requestData<T>(request: RecordedRequest, schema?: DataSchema<T>): Record<string, unknown> | T {
  const data = parseData(request.firstUserText);
  return schema === undefined ? data : schema.parse(data);
}

/** The prompt's `user` text, without the `<data>` block: what a responder routes a prompt by. */
export function userText(request: RecordedRequest): string {
  const first = request.firstUserText ?? '';
  const match = DATA_BLOCK.exec(first);
  return match === null ? first : first.slice(0, match.index);
}

function parseData(firstUserText: string | undefined): Record<string, unknown> {
  const json = DATA_BLOCK.exec(firstUserText ?? '')?.[1];
  if (json === undefined) return {};
  try {
    const parsed: unknown = JSON.parse(json);
    return isRecord(parsed) ? parsed : {};
  } catch {
    // Only a prompt whose own text ends in a look-alike block gets here; it carried no data.
    return {};
  }
}
