import type { Scope } from './scope.js';
import type { WorkflowRuntime } from './workflow-runtime.js';

/**
 * An extension point for layers above core: called when a step has failed and its own retry
 * policy will not run it again. Resolves true to run the step once more (the caller emits the
 * `stepRetry`); a hook that throws fails the step with that error. Reflection registers one
 * (`reflection/step-reflection.ts`), so core never imports the agent layer.
 */
export type StepFailureHook = (workflow: WorkflowRuntime, scope: Scope, error: unknown, attempt: number) => Promise<boolean>;

const hooks = new Map<string, StepFailureHook>();

/** Registers `hook` under `name` (registering a name again replaces it); returns an unregister. */
export function onStepFailure(name: string, hook: StepFailureHook): () => void {
  hooks.set(name, hook);
  return () => {
    if (hooks.get(name) === hook) hooks.delete(name);
  };
}

/** True when a registered hook asks for another attempt (hooks run in registration order). */
export async function retryAfterStepFailure(workflow: WorkflowRuntime, scope: Scope, error: unknown, attempt: number): Promise<boolean> {
  for (const hook of hooks.values()) {
    if (await hook(workflow, scope, error, attempt)) return true;
  }
  return false;
}
