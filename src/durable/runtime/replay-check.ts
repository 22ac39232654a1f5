import type { TreeNode } from '../../core/tree-node.js';
import type { PromptCall } from '../../agent/prompt-call.js';
import type { CallRecord } from '../store/stored-records.js';

/**
 * What a replay of a recording watches while the run goes (see `replayRun`): each step as it
 * starts, and each agent call the recording cannot serve. A method throws to stop the run at the
 * first place the code behaves differently; a call is never let through to its model.
 */
export interface ReplayCheck {
  /** A step starts under `key` (its recorded record, if any, is not served: the body runs again). */
  stepStarting(key: string, node: TreeNode): void;
  /** An agent call about to be served from the recording (it may still throw: a changed tool). */
  callServed<T>(key: string, call: PromptCall<T>, recorded: CallRecord): void;
  /** An agent call the recording has no record of. */
  callMissing<T>(key: string, call: PromptCall<T>): never;
  /** An agent call whose request differs from the recorded one (or whose answer no longer parses). */
  callChanged<T>(key: string, call: PromptCall<T>, recorded: CallRecord): never;
}
