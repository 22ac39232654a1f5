// groundswell/web/client: reading a run's stream in a browser (no Node modules).
export { readRunStream } from './read-run-stream.js';
export type { ReadRunStreamOptions } from './read-run-stream.js';
