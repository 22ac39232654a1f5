import { setCallJournalLookup } from '../agent/call-journal.js';
import { setDurableRunner } from '../core/durable-runner.js';
import type { Workflow } from '../core/workflow.js';
import { durableRunOf, runDurably } from './run-durably.js';

/** Plugs durable runs into core (the runner) and the agent layer (the call journal). */
export function installDurableRuns(): void {
  // Core hands over its structural view of the workflow; every root is a Workflow.
  setDurableRunner((workflow, args, run) => runDurably(workflow as Workflow<never>, args, run));
  setCallJournalLookup(durableRunOf);
}
