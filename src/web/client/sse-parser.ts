/** One server-sent event: its `id` (the last one given, as the standard keeps it) and its data. */
export interface SseEvent {
  readonly id: string | undefined;
  readonly data: string;
}

/**
 * Cuts server-sent events out of text that arrives in arbitrary pieces (a frame, a line, even a
 * `\r\n`, may be split). Only `id` and `data` fields matter here; comments and others are skipped.
 */
export class SseParser {
  private buffer = '';
  private data: string[] = [];
  private lastId: string | undefined;

  /** The events completed by `text`. */
  push(text: string): SseEvent[] {
    this.buffer += text;
    const events: SseEvent[] = [];
    for (;;) {
      const end = this.lineEnd();
      if (end === undefined) return events;
      const line = this.buffer.slice(0, end.at);
      this.buffer = this.buffer.slice(end.at + end.length);
      if (line === '') {
        if (this.data.length > 0) events.push({ id: this.lastId, data: this.data.join('\n') });
        this.data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? '' : line.slice(colon + 1);
      if (value.startsWith(' ')) value = value.slice(1);
      if (field === 'data') this.data.push(value);
      else if (field === 'id' && !value.includes('\u0000')) this.lastId = value;
    }
  }

  /** The first line end in the buffer; a `\r` at its very end may be half of a `\r\n` still coming. */
  private lineEnd(): { at: number; length: number } | undefined {
    const n = this.buffer.indexOf('\n');
    const r = this.buffer.indexOf('\r');
    if (r >= 0 && (n < 0 || r < n)) {
      if (r === this.buffer.length - 1) return undefined;
      return { at: r, length: this.buffer[r + 1] === '\n' ? 2 : 1 };
    }
    return n < 0 ? undefined : { at: n, length: 1 };
  }
}
