/**
 * `text` cut to at most `max` characters, the marker included, ending with a marker that says
 * what was dropped (so a reader, or a model, never takes a cut text for the whole). The marker
 * is built from how many characters were dropped; the cut never splits a surrogate pair.
 */
export function truncate(text: string, max: number, marker: (dropped: number) => string): string {
  if (text.length <= max) return text;
  // The marker's length depends on the dropped count; one more pass settles it, since the count's
  // digit length changes by at most one when the kept part shrinks by a marker.
  let keep = Math.max(0, max - marker(text.length).length);
  keep = Math.max(0, max - marker(text.length - keep).length);
  const kept = safeSlice(text, keep);
  return kept + marker(text.length - kept.length);
}

/** The first `n` code units, without splitting a surrogate pair (which would be invalid text). */
export function safeSlice(text: string, n: number): string {
  const end = Math.max(0, n);
  const last = text.charCodeAt(end - 1);
  return last >= 0xd800 && last <= 0xdbff ? text.slice(0, end - 1) : text.slice(0, end);
}
