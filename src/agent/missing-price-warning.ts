import type { CallTree } from './call-tree.js';

/**
 * Remembers, for one agent, the models it has already warned about: an agent configured with
 * `pricing` that lacks its model otherwise shows no cost without saying why, and one warning per
 * model is enough to explain it without repeating on every call.
 */
export class MissingPriceWarning {
  private readonly warned = new Set<string>();

  /** Emits `pricingMissing` on the call's node the first time `model` is seen unpriced in a tree. */
  note(tree: CallTree, agentName: string, model: string): void {
    // Outside a workflow nobody would hear it: keep the warning for the first call inside one.
    if (tree.node === undefined || this.warned.has(model)) return;
    this.warned.add(model);
    tree.emit({ type: 'pricingMissing', agentName, model });
  }
}
