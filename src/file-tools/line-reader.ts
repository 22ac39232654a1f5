import type { FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import type { CallBudget } from './call-budget.js';
import { CHUNK_BYTES } from './read-bytes.js';

export interface ReadLine {
  /** 1-based line number. */
  readonly number: number;
  /** The line's first characters (at most `keepChars`), without the line break. */
  readonly head: string;
  /** The whole line's length in characters, including what `head` does not hold. */
  readonly length: number;
  /** False when the budget ran out inside this line, so `length` is only a lower bound. */
  readonly complete: boolean;
}

/**
 * Reads an open file line by line from its descriptor, keeping at most `keepChars` characters of
 * any line: the rest is only counted. A file that is one enormous line therefore costs one chunk of
 * memory, not a string of its size (which past ~512 MB is a `RangeError` that kills the process).
 * Lines end at `\n`, with a `\r` before it dropped. Every chunk is charged to `budget`; when it runs
 * out the line in progress is yielded as incomplete and reading stops.
 */
export async function* readLines(handle: FileHandle, keepChars: number, budget: CallBudget): AsyncGenerator<ReadLine> {
  const decoder = new StringDecoder('utf8');
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);
  let position = 0;
  let number = 1;
  let head = '';
  let length = 0;
  let lastChar = '';
  const take = (text: string): void => {
    if (text === '') return;
    if (head.length < keepChars) head += text.slice(0, keepChars - head.length);
    length += text.length;
    lastChar = text[text.length - 1] ?? '';
  };
  const finish = (complete: boolean): ReadLine => {
    let line: ReadLine = { number, head, length, complete };
    if (complete && lastChar === '\r') {
      line = { number, head: head.length === length ? head.slice(0, -1) : head, length: length - 1, complete };
    }
    number += 1;
    head = '';
    length = 0;
    lastChar = '';
    return line;
  };
  for (;;) {
    if (!budget.ok()) {
      if (length > 0) yield finish(false);
      return;
    }
    const want = Math.min(CHUNK_BYTES, budget.remainingBytes());
    const { bytesRead } = await handle.read(buffer, 0, want, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    budget.spend(bytesRead);
    const text = decoder.write(buffer.subarray(0, bytesRead));
    let from = 0;
    for (let newline = text.indexOf('\n'); newline !== -1; newline = text.indexOf('\n', from)) {
      take(text.slice(from, newline));
      yield finish(true);
      from = newline + 1;
    }
    take(text.slice(from));
  }
  take(decoder.end());
  // A last line without a final line break still counts; a final break does not open an empty line.
  if (length > 0) yield finish(true);
}
