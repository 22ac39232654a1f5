import { GroundswellError } from '../errors/groundswell-error.js';

/** `groundswell/otel` could not be set up: the optional `@opentelemetry/api` peer is missing or unusable. */
export class OtelSetupError extends GroundswellError {}
