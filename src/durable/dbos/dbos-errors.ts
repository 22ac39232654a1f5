import { GroundswellError } from '../../errors/groundswell-error.js';

/** A call DBOS recorded no longer fits the code replaying it (the prompt's schema rejects the stored answer). */
export class DbosReplayError extends GroundswellError {}
