import type { Workflow } from '../core/workflow.js';
import type { PromptCall, PromptInterceptor, PromptOutcome } from './prompt-call.js';

/**
 * What a durable run keeps of agent calls (the durable-run layer implements it): a call completed
 * by an earlier attempt of the run is answered from the store, without a model request.
 */
export interface CallJournal {
  /** The stored outcome of this call, or undefined when it must run. Throws when the call changed. */
  replayCall<T>(call: PromptCall<T>): PromptOutcome<T> | undefined;
  /** The call completed; the caller waits until it is stored. */
  callCompleted<T>(call: PromptCall<T>, outcome: PromptOutcome<T>): Promise<void>;
}

type JournalLookup = (workflow: Workflow) => CallJournal | undefined;
let lookup: JournalLookup = () => undefined;

/** Extension point: the durable-run layer tells the agent layer where a run's journal is. */
export function setCallJournalLookup(next: JournalLookup): void {
  lookup = next;
}

/** Inside the tree interceptor: a replayed call still shows as a node, marked `replayed`. */
export const journalInterceptor: PromptInterceptor = async (call, next) => {
  const workflow = call.tree.workflow;
  const journal = workflow === undefined ? undefined : lookup(workflow);
  if (journal === undefined) return next(call);
  const replayed = journal.replayCall(call);
  if (replayed !== undefined) return replayed;
  const outcome = await next(call);
  await journal.callCompleted(call, outcome);
  return outcome;
};
