/** A value shorter than this is never masked: masking "dev" or "1" would mangle ordinary text. */
export const MIN_SECRET_CHARS = 4;

/**
 * A line of a multi-line secret (a PEM body line) is also masked on its own when it is at least
 * this long, so a key that was re-wrapped, indented or cut still leaves no recognisable line.
 */
export const MIN_SECRET_LINE_CHARS = 16;

const LINE_BREAK = /\r?\n/;

/**
 * The forms in which `secret` can appear in stored text: as it is, trimmed, with `\n` or `\r\n`
 * line ends, and each of those JSON-string-escaped once and twice (a tool output holding JSON,
 * stored inside another JSON string). For a multi-line secret also each long enough line.
 * Longest first, so a whole secret is masked as one `***` before any of its lines.
 */
export function secretForms(secret: string): string[] {
  const forms = new Set<string>();
  const add = (form: string, min: number): void => {
    if (form.length < min) return;
    forms.add(form);
    const once = jsonEscaped(form);
    forms.add(once);
    forms.add(jsonEscaped(once));
  };
  add(secret, MIN_SECRET_CHARS);
  add(secret.trim(), MIN_SECRET_CHARS);
  if (LINE_BREAK.test(secret)) {
    const trimmed = secret.trim();
    add(trimmed.replace(/\r\n/g, '\n'), MIN_SECRET_CHARS);
    add(trimmed.replace(/\r?\n/g, '\r\n'), MIN_SECRET_CHARS);
    for (const line of secret.split(LINE_BREAK)) add(line.trim(), MIN_SECRET_LINE_CHARS);
  }
  return [...forms].sort((a, b) => b.length - a.length);
}

/** The text between the quotes of `JSON.stringify(text)`. */
function jsonEscaped(text: string): string {
  return JSON.stringify(text).slice(1, -1);
}
