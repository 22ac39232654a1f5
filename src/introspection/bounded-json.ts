import { toJsonSafe } from '../util/json-safe.js';
import { safeSlice, truncate } from '../util/truncate.js';

/** Smallest answer size a caller may ask for: below it even the truncation marker would not fit. */
export const MIN_ANSWER_CHARS = 200;

// Progressively harsher caps (longest string, longest list, most keys per object). Shrinking the
// data first keeps the answer valid JSON the model can still read field by field; cutting the
// text is only the last resort.
const SHRINK_STEPS: ReadonlyArray<readonly [strings: number, items: number, keys: number]> = [
  [1_000, 40, 60],
  [400, 20, 30],
  [160, 10, 20],
  [60, 6, 12],
  [24, 4, 8],
];

/**
 * `value` as JSON text of at most `maxChars` characters (UTF-16 code units, as `string.length`
 * counts). When the full JSON is longer, long strings, lists and objects are shortened with
 * `…[+N chars]` / `…[N more items]` / `…[N more keys]` markers; if even that does not fit, the
 * text is cut and ends with `…[truncated: N chars total]`. Never longer than `maxChars`.
 */
export function boundedJson(value: unknown, maxChars: number): string {
  const limit = Math.max(MIN_ANSWER_CHARS, Math.floor(maxChars));
  const data = toJsonSafe(value, 12);
  const full = JSON.stringify(data) ?? 'null';
  if (full.length <= limit) return full;
  for (const [strings, items, keys] of SHRINK_STEPS) {
    const text = JSON.stringify(shrink(data, strings, items, keys)) ?? 'null';
    if (text.length <= limit) return text;
  }
  return cut(full, limit);
}

function shrink(value: unknown, strings: number, items: number, keys: number): unknown {
  if (typeof value === 'string') {
    return value.length <= strings ? value : `${safeSlice(value, strings)}…[+${value.length - strings} chars]`;
  }
  if (Array.isArray(value)) {
    const list = value.map((item) => shrink(item, strings, items, keys));
    if (list.length <= items) return list;
    // Head and tail: the first entries say what the list is, the last ones are often the newest.
    const head = Math.ceil((items - 1) / 2);
    const tail = items - 1 - head;
    return [...list.slice(0, head), `…[${list.length - head - tail} more items]`, ...list.slice(list.length - tail)];
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    const out: Record<string, unknown> = {};
    for (const [key, child] of entries.slice(0, keys)) out[key] = shrink(child, strings, items, keys);
    if (entries.length > keys) out['…'] = `[${entries.length - keys} more keys]`;
    return out;
  }
  return value;
}

function cut(text: string, limit: number): string {
  return truncate(text, limit, () => `…[truncated: ${text.length} chars total]`);
}
