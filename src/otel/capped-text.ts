import { truncate } from '../util/truncate.js';

/**
 * Longest text an error puts on a span (message, status description, error type), as long as the
 * answer and tool output the tree keeps (2,000 characters): exporters send every byte, and a
 * collector refuses or drops oversized spans.
 */
const TEXT_LIMIT = 2_000;
/** A stack is kept longer than a message, so its frames survive (its header is capped as a message). */
const STACK_LIMIT = 8_000;

/** `text` cut to `max` characters, ending with a marker that says how many were cut. */
export function capped(text: string, max = TEXT_LIMIT): string {
  return truncate(text, max, (dropped) => `… [${dropped} more characters cut]`);
}

/**
 * A stack for an exception event: its `Name: message` header capped like a message, so a huge
 * message does not push the frames out, then the whole capped at a stack's length.
 */
export function cappedStack(stack: string, name: string, message: string): string {
  const header = `${name}: ${message}`;
  const shortened = message.length > TEXT_LIMIT && stack.startsWith(header) ? `${name}: ${capped(message)}${stack.slice(header.length)}` : stack;
  return capped(shortened, STACK_LIMIT);
}
