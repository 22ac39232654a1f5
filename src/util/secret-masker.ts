import { MIN_SECRET_CHARS, secretForms } from './secret-forms.js';

/** What a masked secret becomes (the same text as a redacted field). */
const MASK = '***';

/** Nesting beyond this is replaced whole: a payload that deep cannot be checked cheaply. */
const MAX_DEPTH = 64;
const TOO_DEEP = '[nested too deep to check for secrets]';
const UNREADABLE = '[unreadable value]';

/**
 * Replaces known secrets, in all their forms (see `secretForms`), by `***` in text and in JSON
 * data. Built once per agent call (and kept per run); with no secrets it is the identity and
 * costs nothing. Structures are copied only where something was masked, so unchanged data keeps
 * its identity.
 */
export class SecretMasker {
  static readonly NONE = new SecretMasker([]);

  /** The raw secrets (deduplicated, long enough to mask). */
  readonly secrets: readonly string[];
  private readonly forms: readonly string[];
  private readonly known: ReadonlySet<string>;

  private constructor(secrets: readonly string[]) {
    this.secrets = secrets;
    this.known = new Set(secrets);
    const forms = new Set<string>();
    for (const secret of secrets) for (const form of secretForms(secret)) forms.add(form);
    this.forms = [...forms].sort((a, b) => b.length - a.length);
  }

  /** A masker for these values: strings and numbers, at least MIN_SECRET_CHARS long; anything else is ignored. */
  static of(values: Iterable<unknown>): SecretMasker {
    return SecretMasker.NONE.with(values);
  }

  /** True when there is something to mask. */
  get active(): boolean {
    return this.forms.length > 0;
  }

  /** This masker plus `values`; `this` itself when none of them is new. */
  with(values: Iterable<unknown>): SecretMasker {
    let added: string[] | undefined;
    for (const value of values) {
      const text = typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'bigint' ? String(value) : undefined;
      if (text === undefined || text.trim().length < MIN_SECRET_CHARS || this.known.has(text) || added?.includes(text)) continue;
      (added ??= []).push(text);
    }
    return added === undefined ? this : new SecretMasker([...this.secrets, ...added]);
  }

  /**
   * How many characters at the end of `text` could be the start of a secret (the longest suffix
   * that begins some form): text streamed in pieces holds them back until the next piece says.
   */
  openTail(text: string): number {
    let longest = 0;
    for (const form of this.forms) {
      for (let n = Math.min(form.length - 1, text.length); n > longest; n -= 1) {
        if (text.endsWith(form.slice(0, n))) {
          longest = n;
          break;
        }
      }
    }
    return longest;
  }

  /** `text` with every form of every secret replaced by `***`. */
  text(text: string): string {
    let out = text;
    for (const form of this.forms) if (out.includes(form)) out = out.split(form).join(MASK);
    return out;
  }

  /** JSON-like data with secrets masked in every string, keys included. */
  value<T>(value: T): T {
    return this.active ? (this.walk(value, 0) as T) : value;
  }

  /** Whether `value` holds a secret anywhere. */
  contains(value: unknown): boolean {
    return this.active && this.walk(value, 0) !== value;
  }

  private walk(value: unknown, depth: number): unknown {
    if (typeof value === 'string') return this.text(value);
    // A numeric secret (a PIN) held as a number in JSON data.
    if (typeof value === 'number' || typeof value === 'bigint') return this.known.has(String(value)) ? MASK : value;
    if (typeof value !== 'object' || value === null) return value;
    if (depth >= MAX_DEPTH) return TOO_DEEP;
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i += 1) {
        const item: unknown = value[i];
        const masked = this.walk(item, depth + 1);
        if (masked !== item) (out ??= value.slice())[i] = masked;
      }
      return out === undefined ? value : Object.isFrozen(value) ? Object.freeze(out) : out;
    }
    let out: Record<string, unknown> | undefined;
    let entries: Array<[string, unknown]>;
    try {
      entries = Object.entries(value);
    } catch {
      return UNREADABLE; // a hostile object (throwing getter, revoked proxy) cannot be checked
    }
    for (let i = 0; i < entries.length; i += 1) {
      const [key, item] = entries[i] as [string, unknown];
      const maskedKey = this.text(key);
      const masked = this.walk(item, depth + 1);
      if (out === undefined && (masked !== item || maskedKey !== key)) {
        // Copy the entries already passed unchanged, then go on writing into the copy.
        out = {};
        for (let j = 0; j < i; j += 1) {
          const [k, v] = entries[j] as [string, unknown];
          out[k] = v;
        }
      }
      if (out !== undefined) out[maskedKey] = masked;
    }
    return out === undefined ? value : Object.isFrozen(value) ? Object.freeze(out) : out;
  }
}
