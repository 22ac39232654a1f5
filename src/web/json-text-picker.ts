const ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * Reads an answer's JSON text as the model writes it, piece by piece, and gives back the text a
 * reader should see: the decoded string when the answer is a JSON string, the decoded value of
 * `field` when it names a top-level string field of an object answer, and the JSON text itself
 * when no field is named and the answer is not a string. Pieces may split anything
 * (a key, an escape, a `\u` sequence); the same pieces always give the same text.
 */
export class JsonTextPicker {
  private depth = 0;
  private inString = false;
  private escape = '';
  private capturing = false;
  private key = '';
  private readingKey = false;
  private lastKey: string | undefined;
  private afterColon = false;
  private started = false;
  /** No field asked for and the answer is not a string: its JSON text is the text. */
  private raw = false;

  constructor(private readonly field: string | undefined) {}

  /** The decoded text `piece` adds (often empty). */
  add(piece: string): string {
    let out = '';
    let i = 0;
    while (i < piece.length) {
      if (this.raw) return out + piece.slice(i);
      if (this.capturing && this.escape.length === 0) {
        // Plain characters of the picked string are copied as a run, not one by one.
        const end = plainRunEnd(piece, i);
        if (end > i) {
          out += piece.slice(i, end);
          i = end;
          continue;
        }
      }
      // One UTF-16 unit at a time: only ASCII quotes, brackets and escapes matter here.
      const ch = piece[i] as string;
      i += 1;
      if (this.capturing) {
        out += this.captured(ch);
        continue;
      }
      this.scan(ch);
      if (this.raw) out += ch;
    }
    return out;
  }

  private captured(ch: string): string {
    if (this.escape.length > 0) {
      this.escape += ch;
      if (this.escape[1] !== 'u') {
        const decoded = ESCAPES[ch] ?? ch;
        this.escape = '';
        return decoded;
      }
      if (this.escape.length < 6) return '';
      const code = Number.parseInt(this.escape.slice(2), 16);
      this.escape = '';
      return Number.isNaN(code) ? '' : String.fromCharCode(code);
    }
    if (ch === '\\') {
      this.escape = ch;
      return '';
    }
    if (ch === '"') {
      // The picked string ended: nothing after it is shown.
      this.capturing = false;
      this.depth = -1;
      return '';
    }
    return ch;
  }

  private scan(ch: string): void {
    if (this.depth < 0) return;
    if (this.inString) {
      if (this.escape.length > 0) this.escape = '';
      else if (ch === '\\') this.escape = ch;
      else if (ch === '"') {
        this.inString = false;
        if (this.readingKey) {
          this.readingKey = false;
          this.lastKey = this.key;
        }
      } else if (this.readingKey) this.key += ch;
      return;
    }
    if (ch === ' ' || ch === '\n' || ch === '\r' || ch === '\t') return;
    if (!this.started) {
      this.started = true;
      // A string answer: its content is the text.
      if (this.field === undefined) {
        if (ch === '"') this.capturing = true;
        else this.raw = true;
        return;
      }
    }
    if (ch === '"') {
      if (this.depth === 1 && this.afterColon && this.lastKey === this.field && this.field !== undefined) {
        this.capturing = true;
        this.afterColon = false;
        return;
      }
      this.inString = true;
      this.readingKey = this.depth === 1 && !this.afterColon;
      if (this.readingKey) this.key = '';
      this.afterColon = false;
      return;
    }
    if (ch === ':') {
      this.afterColon = this.depth === 1;
      return;
    }
    this.afterColon = false;
    if (ch === '{' || ch === '[') this.depth += 1;
    else if (ch === '}' || ch === ']') this.depth -= 1;
  }
}

/** Where the run of characters from `from` that are neither a quote nor a backslash ends. */
function plainRunEnd(text: string, from: number): number {
  let at = from;
  while (at < text.length) {
    const code = text.charCodeAt(at);
    if (code === 34 || code === 92) return at;
    at += 1;
  }
  return at;
}
