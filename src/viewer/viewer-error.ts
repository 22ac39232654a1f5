import { GroundswellError } from '../errors/groundswell-error.js';

/** The viewer could not start (the port is taken, the host cannot be bound) or was given a run it cannot show. */
export class ViewerError extends GroundswellError {}
