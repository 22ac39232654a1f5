import type { TreeNode } from './tree-node.js';

/**
 * Guidance left by workflow-level reflection on the nearest enclosing step that has any, oldest
 * first — also from a step of an ancestor workflow, since a retried step re-runs its children.
 */
export function guidanceAt(node: TreeNode | undefined): string[] {
  for (let n: TreeNode | undefined = node; n !== undefined; n = n.parent ?? undefined) {
    const guidance = n.guidance;
    if (guidance.length > 0) return [...guidance];
  }
  return [];
}
