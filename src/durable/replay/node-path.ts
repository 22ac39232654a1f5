import type { WorkflowNode } from '../../types/node.js';

/** A node's place in the tree as a person reads it: names from the root, `Research › ask › explainer: …`. */
export function nodePath(node: WorkflowNode | null | undefined): string {
  const names: string[] = [];
  for (let at = node; at !== null && at !== undefined; at = at.parent) names.push(at.name);
  return names.reverse().join(' › ');
}
