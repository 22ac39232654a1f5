import { nextId } from '../util/ids.js';
import type { NodeKey } from '../util/node-key.js';
import type { BudgetNode } from './budget-node.js';

/**
 * A node for budgets of work that runs outside any workflow (an agent called on its own): it
 * holds the call's budgets the way a tree node would, with nobody above it.
 */
export class LooseNode implements BudgetNode {
  readonly id = nextId('call');
  readonly parent = null;
  private readonly attrs = new Map<NodeKey<unknown>, unknown>();

  constructor(readonly name: string) {}

  getAttr<T>(key: NodeKey<T>): T | undefined {
    return this.attrs.get(key) as T | undefined;
  }

  setAttr<T>(key: NodeKey<T>, value: T | undefined): void {
    if (value === undefined) this.attrs.delete(key);
    else this.attrs.set(key, value);
  }
}
