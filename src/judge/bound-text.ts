/**
 * Cuts `text` to at most `max` characters (marker included when it fits), saying how much was
 * dropped, so a model never mistakes a cut output for the whole of it.
 */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = (dropped: number): string => `\n[output truncated: ${dropped} more characters]`;
  // The marker's own length depends on the dropped count; one adjustment pass is enough because
  // the count's digit length changes by at most one when the kept part shrinks by a marker.
  let keep = Math.max(0, max - marker(text.length).length);
  keep = Math.max(0, max - marker(text.length - keep).length);
  return text.slice(0, keep) + marker(text.length - keep);
}

/** Cuts a single line for listings (grep matches, long source lines) so one line cannot flood the output. */
export function boundLine(line: string, max: number): string {
  return line.length <= max ? line : `${line.slice(0, max)}… [line cut, ${line.length - max} more characters]`;
}
