import { Agent } from '../agent/agent.js';
import { runInScope, type Scope } from '../core/scope.js';
import { onStepFailure } from '../core/step-failure.js';
import type { TreeNode } from '../core/tree-node.js';
import { addStepGuidance, stepGuidance } from '../core/step-guidance.js';
import type { WorkflowRuntime } from '../core/workflow-runtime.js';
import { isRetryable } from '../errors/predicates.js';
import { isInstance } from '../util/describe.js';
import { reflectionAttempts, type ReflectionOptions } from '../agent/config/reflection-config.js';
import { ReflectionFailedError } from './reflection-failed-error.js';
import { reflect } from './reflection-pass.js';

/** `enableReflection` on a workflow: the options plus the agent that does the reflecting. */
export interface WorkflowReflectionOptions extends ReflectionOptions {
  /** Who reflects on failed steps (default: an agent with the default client and model). */
  agent?: Agent;
}

const defaultReflectors = new WeakMap<WorkflowRuntime, Agent>();

/**
 * Workflow-level reflection on a failed step: a reflection pass under the step, whose guidance
 * is left on the step node for the agent calls of the retry. Resolves true when the step should
 * be retried, false when reflection is off, spent, or cannot help (the error is not retryable).
 * A pass that itself fails is thrown as a ReflectionFailedError.
 */
async function reflectOnStep(workflow: WorkflowRuntime, scope: Scope, error: unknown, attempt: number): Promise<boolean> {
  const setting = workflow.config.enableReflection;
  const attempts = reflectionAttempts(setting, `workflow "${workflow.name}"`);
  const node = scope.node as TreeNode;
  if (attempts <= 1 || stepGuidance(node).length >= attempts - 1) return false;
  if (workflow.isCancelled || !isRetryable(error) || isInstance(error, ReflectionFailedError)) return false;
  // Checked to be agent-like when the workflow was built (validation/reflection.schema.ts).
  const reflector = (typeof setting === 'object' ? (setting.agent as Agent | undefined) : undefined) ?? defaultReflector(workflow);
  const revision = await runInScope(scope, () =>
    reflect(reflector, {
      level: 'workflow',
      attempt,
      task: `Step "${node.name}" of workflow "${workflow.name}" failed and will be run again.`,
      error,
    }),
  );
  addStepGuidance(node, revision.guidance);
  return true;
}

/**
 * Hooks workflow-level reflection into the step runner (core's step-failure extension point).
 * The root entry calls it once on load; calling it again changes nothing.
 */
export function installStepReflection(): void {
  onStepFailure('reflection', reflectOnStep);
}

function defaultReflector(workflow: WorkflowRuntime): Agent {
  let agent = defaultReflectors.get(workflow);
  if (agent === undefined) {
    agent = new Agent({ name: `${workflow.name} (reflection)` });
    defaultReflectors.set(workflow, agent);
  }
  return agent;
}
