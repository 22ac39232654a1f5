/**
 * Names the server and the page share for signals (decision 0081). Values only, no imports: the
 * page's bundle includes this file.
 */

/** The meta element the page reads the server's signal token from. */
export const TOKEN_META = 'groundswell-signal-token';

/** The header the page sends the token in. */
export const TOKEN_HEADER = 'x-groundswell-token';

/** Where the page posts `{ name, value }`. */
export const SIGNAL_PATH = '/api/signal';
