/** A thrown value as JSON: name, message, stack and a few levels of `cause`. */
export interface SerializedError {
  name: string;
  message: string;
  stack?: string;
  workflowId?: string;
  cause?: SerializedError;
  /** Present on merged errors from concurrent tasks. */
  errors?: SerializedError[];
}
