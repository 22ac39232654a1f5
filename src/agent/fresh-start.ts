// Internal, not exported from the package: only groundswell's own fresh-eyes agents use it.
// Keyed by identity (an Agent or a Prompt), so this module needs neither type.
const fresh = new WeakSet<object>();

/**
 * Marks an agent (every call it makes) or a single prompt as starting fresh: the call gets no
 * slice of an enclosing agent's trajectory, no guidance left on the step it runs in, and no goal
 * ancestry derived from the workflows around it (only what is set on the agent itself). For the
 * judge, reflection passes and the plan drafter, whose value is that they never see the worker's run.
 */
export function markFresh<T extends object>(target: T): T {
  fresh.add(target);
  return target;
}

/** Whether a call of `agent` with `prompt` starts fresh. */
export function startsFresh(agent: object, prompt: object): boolean {
  return fresh.has(agent) || fresh.has(prompt);
}
