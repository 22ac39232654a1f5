import type { WireRow } from './wire-row.js';

/** Rows written as JSON by one call: small enough to join cheaply, large enough that calls are few. */
const ROWS_PER_PART = 512;

const COMMA = 0x2c;

/**
 * One SSE message whose data is `fields` with `rows` as its last field, `key`, as bytes made
 * once for every open page. The rows' JSON is made in parts of a few hundred rows, each copied
 * into the bytes as it is when it is all ASCII (as many bytes as characters), else encoded: the
 * JSON of a whole batch of 20,000 rows comes back as a string of many pieces, and joining those
 * into one 1.5 MB string, to measure and copy it, cost a fifth of making it.
 */
export function rowsMessage(event: string, fields: object, key: string, rows: readonly WireRow[]): Buffer {
  const open = JSON.stringify(fields);
  // `fields` as an object left open, then `"key":` (the rows' array follows).
  const head = `event: ${event}\ndata: ${open === '{}' ? '{' : `${open.slice(0, -1)},`}${JSON.stringify(key)}:`;
  const tail = '}\n\n';
  const parts: string[] = [];
  const sizes: number[] = [];
  let total = Buffer.byteLength(head) + tail.length;
  for (let from = 0; from === 0 || from < rows.length; from += ROWS_PER_PART) {
    const part = JSON.stringify(rows.slice(from, from + ROWS_PER_PART));
    const size = Buffer.byteLength(part);
    parts.push(part);
    sizes.push(size);
    // Each part is an array: the next part's "[" takes the place of this one's "]" and becomes a comma.
    total += size - (parts.length > 1 ? 1 : 0);
  }
  const bytes = Buffer.allocUnsafe(total);
  let at = bytes.write(head, 'utf8');
  for (let i = 0; i < parts.length; i += 1) {
    const part = parts[i] as string;
    const size = sizes[i] as number;
    if (i > 0) at -= 1;
    const start = at;
    at += bytes.write(part, at, size, size === part.length ? 'latin1' : 'utf8');
    if (i > 0) bytes[start] = COMMA;
  }
  bytes.write(tail, at, 'latin1');
  return bytes;
}
