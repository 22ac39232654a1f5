import { UsageError } from '../errors/groundswell-error.js';
import { createNodeKey } from '../util/node-key.js';
import { runInScope } from './scope.js';
import type { TreeNode } from './tree-node.js';
import type { WorkflowRuntime } from './workflow-runtime.js';

/**
 * What `replaceLastPromptResult` needs of a prompt and an agent. Core does not know the agent
 * layer: a `Prompt<T>` and an `Agent` fit structurally, and `T` is the prompt's answer type.
 * @public (in public signatures; knip)
 */
export interface AskedPrompt<T> {
  readonly responseFormat: { parse(data: unknown): T };
}
/** @public (in public signatures; knip) */
export interface PromptAsker {
  prompt<T>(prompt: AskedPrompt<T>): Promise<T>;
}

interface PromptCallRecord {
  readonly node: TreeNode;
  readonly value: unknown;
}

// The last agent call that succeeded inside a workflow, on the workflow's own node. Neither
// merged on pruning nor exported: it only serves `lastPromptResult`/`replaceLastPromptResult`.
const LAST_PROMPT_CALL = createNodeKey<PromptCallRecord>('lastPromptCall');

/** Remembers the agent call at `node` (which answered `value`) as `workflow`'s last one. */
export function recordPromptCall(workflow: WorkflowRuntime, node: TreeNode, value: unknown): void {
  workflow.treeNode.setAttr(LAST_PROMPT_CALL, { node, value });
}

/** The value of the last agent call that succeeded in `workflow` (after any replacement). */
export function lastPromptResult(workflow: WorkflowRuntime): unknown {
  return workflow.treeNode.getAttr(LAST_PROMPT_CALL)?.value;
}

/**
 * Asks again with `prompt` and puts the new call where the last one was: the old node hangs
 * beneath the new one (a replacement, not a fork).
 */
export async function replaceLastPromptResult<T>(workflow: WorkflowRuntime, prompt: AskedPrompt<T>, agent: PromptAsker): Promise<T> {
  const last = workflow.treeNode.getAttr(LAST_PROMPT_CALL);
  const parent = last?.node.parent;
  if (last === undefined || parent === null || parent === undefined) {
    throw new UsageError(
      `replaceLastPromptResult: workflow "${workflow.name}" has no earlier agent result to replace; call an agent first.`,
    );
  }
  // Retention pruned the old call's place (its step, finished long ago): a call made there would
  // hang outside the tree, its tokens in no total. It is made where the code runs, and nothing moves.
  if (parent.prunedBelow(workflow.treeNode)) return agent.prompt(prompt);
  // The new call mounts beside the old one, then takes its place.
  const before = new Set(parent.children);
  const value = await runInScope({ workflow, node: parent }, () => agent.prompt(prompt));
  const replacement = newCallUnder(parent, before, workflow.treeNode.getAttr(LAST_PROMPT_CALL)?.node);
  // (A node already pruned by retention cannot be moved; then the new call simply follows it.)
  if (replacement !== undefined && replacement !== last.node && parent.replaceChild(last.node, replacement)) {
    workflow.emit(replacement, { type: 'promptReplaced', replacedNodeId: last.node.id });
  }
  return value;
}

/**
 * The call this replacement made: an agent call under `parent` that was not there `before`. The
 * workflow's last recorded call is not enough: a call running beside this one (a fan-out) may
 * finish after it, and moving that one would leave it in two places of the tree.
 */
function newCallUnder(parent: TreeNode, before: ReadonlySet<TreeNode>, last: TreeNode | undefined): TreeNode | undefined {
  if (last !== undefined && last.parent === parent && !before.has(last)) return last;
  let found: TreeNode | undefined;
  for (const child of parent.children) if (child.kind === 'agentPrompt' && !before.has(child)) found = child;
  return found;
}
