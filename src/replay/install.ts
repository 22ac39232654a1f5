import { setCallJournalLookup } from '../agent/call-journal.js';
import { setDurableRunner } from '../core/durable-runner.js';
import { durableRunOf, runDurably } from './run-durably.js';

/** Plugs durable runs into core (the runner) and the agent layer (the call journal). */
export function installDurableRuns(): void {
  setDurableRunner(runDurably);
  setCallJournalLookup(durableRunOf);
}
