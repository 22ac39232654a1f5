import type { NodeKey } from '../util/node-key.js';

/**
 * What a budget needs of the tree node it is set on: its place in the tree and a slot for its
 * ledger. Structural, so this unit sits below core (a `TreeNode` fits).
 */
export interface BudgetNode {
  readonly id: string;
  readonly name: string;
  readonly parent: BudgetNode | null;
  getAttr<T>(key: NodeKey<T>): T | undefined;
  setAttr<T>(key: NodeKey<T>, value: T | undefined): void;
}

/** The node's names from the root down, joined by ` / `. */
export function nodePath(node: BudgetNode): string {
  const names: string[] = [];
  for (let at: BudgetNode | null = node; at !== null; at = at.parent) names.push(at.name);
  return names.reverse().join(' / ');
}
