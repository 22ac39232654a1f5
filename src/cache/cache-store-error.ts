import { GroundswellError } from '../errors/groundswell-error.js';

/** A cache store could not reach its backing storage (a directory it cannot create or write). */
export class CacheStoreError extends GroundswellError {}
