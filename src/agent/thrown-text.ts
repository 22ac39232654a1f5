import { describeValue, isError, readProperty, safeString } from '../util/describe.js';

/**
 * A readable one-line reason for anything thrown, for the model and for error messages: the
 * message of an Error (its name when the message is empty), a description when the message
 * cannot be read, and the printed value otherwise. Total: never throws.
 */
export function thrownText(thrown: unknown): string {
  if (isError(thrown)) {
    const message = readProperty(thrown, 'message');
    if (typeof message === 'string' && message !== '') return message;
    const name = readProperty(thrown, 'name');
    if (typeof message === 'string') return typeof name === 'string' && name !== '' ? name : 'Error';
    return `${describeValue(thrown)} whose message cannot be read`;
  }
  return typeof thrown === 'string' ? thrown : safeString(thrown);
}
