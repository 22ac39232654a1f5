/** An agent call as the stream's `text` option sees it. */
export interface TextCall {
  readonly agentName: string;
  /** The workflow that made the call. */
  readonly workflowId: string;
  /** True when the root workflow made it itself (not one of its child workflows). */
  readonly byRoot: boolean;
}

/** What a run's UI message stream carries. */
export interface RunStreamOptions {
  /**
   * Which agent calls' answers stream as the message's text: `'root'` (the default: the calls the
   * root workflow makes itself, its final answer among them), `'all'`, or a test per call.
   */
  readonly text?: 'root' | 'all' | ((call: TextCall) => boolean);
  /**
   * Answers are JSON: a string answer streams as the string itself; an object answer streams as
   * its JSON text, or, with `textField`, as the value of that top-level string field (`'report'`
   * for `z.object({ report: z.string(), ... })`), decoded as the model writes it.
   */
  readonly textField?: string;
  /** Which tree nodes become `data-node` parts: all of them (the default), none, or these kinds. */
  readonly nodes?: 'all' | 'none' | readonly NodeKindName[];
  /** The assistant message's id (default: the run's id, or the root workflow's). */
  readonly messageId?: string;
}

export type NodeKindName = 'workflow' | 'step' | 'task' | 'agent';
