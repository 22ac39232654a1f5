import { GroundswellError } from '../errors/groundswell-error.js';

/**
 * An introspection tool could not answer: it ran outside a workflow, was given a node id that is
 * not in the caller's tree, or a name that is not registered. Thrown inside `execute`, so the
 * agent's tool loop hands the message to the model as an `is_error` tool_result.
 */
export class IntrospectionError extends GroundswellError {}
