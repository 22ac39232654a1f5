/**
 * A SCAN MATCH pattern for keys starting with `prefix`: every glob character of the prefix
 * (`*`, `?`, `[`, `]` and the escape `\` itself) is escaped, so a prefix like `a*b` matches only
 * keys that start with those three characters.
 */
export function prefixPattern(prefix: string): string {
  return `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
}
