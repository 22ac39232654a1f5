/**
 * Words for a POSIX shell, for the commands the viewer shows (shared by the server and the page,
 * so it has no Node imports). A pasted command must run as shown, whatever a name holds.
 */

/** `text` in single quotes: nothing inside is read by the shell; a ' closes, is escaped, and reopens. */
export function singleQuoted(text: string): string {
  return "'" + text.split("'").join("'\\''") + "'";
}

/** `text` as is when every character is one no shell reads specially, else single-quoted. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : singleQuoted(text);
}
