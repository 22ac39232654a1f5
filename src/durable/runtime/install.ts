import { setCallJournalLookup } from '../../agent/call-journal.js';
import { registerTurnFeature } from '../../agent/turn-features.js';
import { handoffFeature } from './handoff-feature.js';
import { setDurableRunner } from '../../core/durable-runner.js';
import type { Workflow } from '../../core/workflow.js';
import { durableRunOf, runDurably } from './run-durably.js';

/**
 * Plugs durable runs into core (the runner) and the agent layer (the call journal, the handoff
 * feature). Registered after the agent's own features, so the handoff block comes last.
 */
export function installDurableRuns(): void {
  // Core hands over its structural view of the workflow; every root is a Workflow.
  setDurableRunner((workflow, args, run) => runDurably(workflow as Workflow<never>, args, run));
  setCallJournalLookup(durableRunOf);
  registerTurnFeature(handoffFeature);
}
