import type { Workflow } from '../core/workflow.js';
import type { BudgetAmounts } from '../budgets/budget-amounts.js';
import type { PromptCall, PromptHandler, PromptInterceptor, PromptOutcome } from './prompt-call.js';
import type { PausedTurn } from './paused-turn.js';

/**
 * What a durable run keeps of agent calls (the durable-run layer implements it): a call completed
 * by an earlier attempt of the run is answered from the store, without a model request.
 */
export interface CallJournal {
  /** The stored outcome of this call, or undefined when it must run. Throws when the call changed. */
  replayCall<T>(call: PromptCall<T>): PromptOutcome<T> | undefined;
  /** The call completed; the caller waits until it is stored. */
  callCompleted<T>(call: PromptCall<T>, outcome: PromptOutcome<T>): Promise<void>;
  /**
   * Optional: a request of the call was reserved on its budgets and is about to be sent; the
   * caller waits until what it holds is stored, so a process killed while the request is in flight
   * still has it counted when the run resumes.
   */
  requestReserved?<T>(call: PromptCall<T>, held: BudgetAmounts): Promise<void>;
  /**
   * Optional, for an engine that checkpoints calls itself (DBOS): the call goes through the
   * engine, which runs it or answers with what it recorded; the two methods above are then not asked.
   */
  wrapCall?<T>(call: PromptCall<T>, run: () => Promise<PromptOutcome<T>>): Promise<PromptOutcome<T>>;
  /** Optional: keeps where the call stands before it waits for a tool call's approval. */
  pauseTurn?<T>(call: PromptCall<T>, paused: PausedTurn): Promise<void>;
  /** Optional: where the call stood when an earlier process stopped it to wait for approval (once). */
  pausedTurn?<T>(call: PromptCall<T>): PausedTurn | undefined;
}

type JournalLookup = (workflow: Workflow) => CallJournal | undefined;
const lookups: JournalLookup[] = [];

/**
 * Extension point: a durable-run layer (durable runs, DBOS) tells the agent layer where a run's
 * journal is. Several may register; the first that knows the workflow's run answers.
 */
export function setCallJournalLookup(next: JournalLookup): void {
  if (!lookups.includes(next)) lookups.push(next);
}

function lookup(workflow: Workflow): CallJournal | undefined {
  for (const find of lookups) {
    const journal = find(workflow);
    if (journal !== undefined) return journal;
  }
  return undefined;
}

/** Inside the tree interceptor: a replayed call still shows as a node, marked `replayed`. */
export const journalInterceptor: PromptInterceptor = (call, next) => {
  const workflow = call.tree.workflow;
  const journal = workflow === undefined ? undefined : lookup(workflow);
  // Not async itself: a run that is not durable passes straight through, with no promise of its own.
  if (journal === undefined) return next(call);
  if (journal.wrapCall !== undefined) return journal.wrapCall(call, () => next(call));
  return journaled(call, next, journal);
};

// Where each journaled call with budgets keeps its requests' reservations (see `reservationSink`).
const sinks = new WeakMap<object, (held: BudgetAmounts) => Promise<void>>();

/** Where `call` stores a request's reservation before sending it; undefined outside a durable run. */
export function reservationSink<T>(call: PromptCall<T>): ((held: BudgetAmounts) => Promise<void>) | undefined {
  return sinks.get(call);
}

// The journal of each call that runs live in a durable run (for pausing at an approval).
const journalsOfCalls = new WeakMap<object, CallJournal>();

/** The journal `call` runs under; undefined outside a durable run. */
export function callJournalOf<T>(call: PromptCall<T>): CallJournal | undefined {
  return journalsOfCalls.get(call);
}

async function journaled<T>(call: PromptCall<T>, next: PromptHandler, journal: CallJournal): Promise<PromptOutcome<T>> {
  const replayed = journal.replayCall(call);
  if (replayed !== undefined) return replayed;
  journalsOfCalls.set(call, journal);
  if (journal.requestReserved !== undefined && call.budgets.length > 0) sinks.set(call, (held) => journal.requestReserved?.(call, held) ?? Promise.resolve());
  const outcome = await next(call);
  await journal.callCompleted(call, outcome);
  return outcome;
}
