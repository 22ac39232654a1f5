import type { Workflow } from './workflow.js';

/** Whether agent calls under `workflow` stream their text as events: the nearest workflow that says so decides. */
export function streamsText(workflow: Workflow | undefined): boolean {
  for (let w = workflow; w !== undefined && w !== null; w = w.parent ?? undefined) {
    if (w.config.streamText !== undefined) return w.config.streamText;
  }
  return false;
}
