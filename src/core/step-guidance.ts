import { createNodeKey } from '../util/node-key.js';
import type { TreeNode } from './tree-node.js';

// Guidance a workflow-level reflection left on a step node for the step's retry. Not merged on
// pruning (a pruned step is finished: nothing retries it) and not exported.
const STEP_GUIDANCE = createNodeKey<string[]>('guidance');

/** The guidance left on `node` itself, oldest first. */
export function stepGuidance(node: TreeNode): readonly string[] {
  return node.getAttr(STEP_GUIDANCE) ?? NONE;
}

/** Leaves `text` on a failed step's node for the agent calls of its retry. */
export function addStepGuidance(node: TreeNode, text: string): void {
  const list = node.getAttr(STEP_GUIDANCE);
  if (list === undefined) node.setAttr(STEP_GUIDANCE, [text]);
  else list.push(text);
}

/**
 * Guidance left by workflow-level reflection on the nearest enclosing step that has any, oldest
 * first — also from a step of an ancestor workflow, since a retried step re-runs its children.
 */
export function guidanceAt(node: TreeNode | undefined): string[] {
  for (let n: TreeNode | undefined = node; n !== undefined; n = n.parent ?? undefined) {
    const guidance = n.getAttr(STEP_GUIDANCE);
    if (guidance !== undefined && guidance.length > 0) return [...guidance];
  }
  return [];
}

const NONE: readonly string[] = Object.freeze([]);
