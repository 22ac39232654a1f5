import { errorMessage } from '../util/describe.js';

/**
 * What the model gets for a tool's return value: strings as they are, anything else as JSON
 * (a BigInt as its decimal digits). A value JSON cannot carry (a cycle, a throwing `toJSON` or
 * getter, a revoked proxy) is an `is_error` result that says why, never an exception.
 */
export function toolContent(toolName: string, value: unknown): { content: string; isError: boolean } {
  if (typeof value === 'string') return { content: value, isError: false };
  if (value === undefined) return { content: '', isError: false };
  try {
    const json = JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item));
    // Functions and symbols have no JSON form: say what they are rather than send nothing.
    return { content: json ?? String(value), isError: false };
  } catch (error) {
    return { content: `Tool "${toolName}" returned a value that cannot be sent as JSON: ${errorMessage(error)}`, isError: true };
  }
}
