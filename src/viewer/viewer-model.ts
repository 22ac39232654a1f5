import type { WorkflowNode } from '../types/node.js';
import type { TokenUsage } from '../types/usage.js';
import { walkTree } from '../util/tree-walk.js';
import { sameRow, showsUsage, wireRow } from './node-row.js';
import { byNode, dropKid, entryOrRow, isRow, leanEntry, newKnown, renew, showsLean, stillShows, type Known } from './known-entry.js';
import { emptyWalk, entriesFrom, sumTotals, type Walk } from './walk-list.js';
import type { WireRow } from './wire-row.js';
import { sameUsage } from '../util/usage.js';
import { ownUsage, subtreeUsage } from './subtree-usage.js';
import type { TreeChanges, TreeSnapshot } from './stream-messages.js';

/** A refresh walks the whole tree when more than 1 node in this many changed. */
const WALK_WHEN_CHANGED = 3;

/**
 * The server's picture of the viewed tree, kept up to date in proportion to what changed: the
 * observer marks the nodes it hears about, and a refresh rebuilds only their rows, finds the new
 * ones under them, moves the ones that moved, drops the ones retention pruned, and re-adds usage
 * only up the changed nodes' ancestor chains. A whole walk happens for a new root, after nobody
 * was watching (`invalidate`), when more than a third of the tree changed (a page open must not
 * cost the run a walk of 20,000 nodes every batch), or when a node object took over a sent id.
 */
export class ViewerModel {
  private root: WorkflowNode | null = null;
  /** Each sent node's entry by id; null after a walk until something needs it (see `known`). */
  private index: Map<string, Known> | null = new Map();
  /** The last walk's nodes, rows and entries, parents first, while `index` is not made from them yet. */
  private walked: Walk = emptyWalk();
  private dirty = new Set<WorkflowNode>();
  private dirtyIds = new Set<string>();
  private whole = true;
  /** The rows sent before were of another root: the next batch starts the page's tree afresh. */
  private forgotten = false;
  /**
   * What rows' start times count from, in whole milliseconds: the shown root's start (or when it
   * was shown), fixed while its rows are kept. Counted from the viewer's own start, a row's start
   * outgrew a small integer after about half an hour (a boxed number per row, slower to print).
   */
  private base = Date.now();

  get timeBase(): number {
    return this.base;
  }

  setRoot(root: WorkflowNode | null): void {
    this.root = root;
    // Every row is built afresh from here (none sent, or all forgotten below): a new base is safe.
    const start = root?.startTime;
    this.base = Math.floor(start !== undefined && Number.isFinite(start) ? start : Date.now());
    // The next batch says "forget every row" rather than naming each one of the old tree.
    if (this.knownCount > 0) {
      this.index = new Map();
      this.walked = emptyWalk();
      this.forgotten = true;
    }
    this.invalidate();
  }

  /**
   * The entries by id, made from the last walk's list on first use: filling a map of 20,000 ids
   * is most of a walk's own work, and a batch that ends a run should not wait for an index only
   * the next small batch, a new page or a node's details use. Each entry's children as sent
   * (`kids`, which only batches after a walk read) are listed here too, for the same reason.
   */
  private get known(): Map<string, Known> {
    if (this.index !== null) return this.index;
    const index = new Map<string, Known>();
    const { nodes, rows, entries, parents } = this.walked;
    for (let i = 0; i < nodes.length; i += 1) {
      const entry = entries[i] ?? leanEntry(nodes[i] as WorkflowNode, rows[i] as WireRow);
      entry.kids = null;
      entries[i] = entry;
      index.set(entry.node.id, entry);
    }
    for (let i = 0; i < nodes.length; i += 1) {
      const up = parents[i] as number;
      if (up >= 0) ((entries[up] as Known).kids ??= []).push((nodes[i] as WorkflowNode).id);
    }
    this.index = index;
    this.walked = emptyWalk();
    return index;
  }

  /** How many rows were sent (without making the index). */
  private get knownCount(): number {
    return this.index === null ? this.walked.nodes.length : this.index.size;
  }

  get rootNode(): WorkflowNode | null {
    return this.root;
  }

  /** The next refresh walks the whole tree (nothing is tracked until then). */
  invalidate(): void {
    // Called for every event while no page is open: clearing an empty set still allocates a new
    // table. Nothing is added while `whole` holds, so the sets are empty then.
    if (this.whole) return;
    this.whole = true;
    this.dirty.clear();
    this.dirtyIds.clear();
  }

  /** `node` changed (or is new): the next refresh looks at it. */
  touch(node: WorkflowNode): void {
    if (this.whole) return;
    this.dirty.add(node);
    this.walkIfMost();
  }

  /** Like `touch`, for a callback that names the node only by id (a log line). */
  touchId(id: string): void {
    if (this.whole) return;
    this.dirtyIds.add(id);
    this.walkIfMost();
  }

  /**
   * Once the next refresh is sure to walk the whole tree, stops collecting changes: a run's every
   * event would otherwise add its node to a set that no refresh reads.
   */
  private walkIfMost(): void {
    if (walks(this.dirty.size + this.dirtyIds.size, this.knownCount)) this.invalidate();
  }

  refresh(): TreeChanges {
    // Looking at one changed node costs several times what one node of a whole walk does: when a
    // batch changed a large part of the tree (a run's steps since the last batch), a walk is cheaper.
    if (this.whole || walks(this.dirty.size + this.dirtyIds.size, this.knownCount)) return this.rebuild();
    const upserted: WireRow[] = [];
    const removed: string[] = [];
    const changed = new Set<Known>();
    const spent = new Set<Known>();
    const dirty = this.dirty;
    for (const id of this.dirtyIds) {
      const known = this.known.get(id);
      if (known !== undefined) dirty.add(known.node);
    }
    // A node object that took over a sent node's id (a live tree never does this; ids are made
    // once) is left to a walk, which finds it by id, before anything here changes.
    for (const node of dirty) {
      const known = this.known.get(node.id);
      if (known !== undefined && known.node !== node) return this.rebuild();
    }
    this.dirty = new Set();
    this.dirtyIds.clear();
    const parents = new Set<Known>();
    // Rows built as their nodes joined this batch: already current, not built twice.
    const fresh = new Set<Known>();
    for (const node of dirty) {
      let known = this.known.get(node.id);
      if (known === undefined) {
        this.adopt(node, upserted, changed, spent, removed, fresh);
        known = this.known.get(node.id);
        if (known === undefined) continue;
      }
      if (!fresh.has(known)) changed.add(known);
      const usage = node.usage;
      if (usage !== known.usage) {
        known.usage = usage;
        known.own = ownUsage(node);
        spent.add(known);
      }
      if (!this.place(known, changed, spent, removed)) continue;
      // A child can arrive without an event of its own: a replaced agent call is hung beneath the
      // call that replaced it, and only the new call reports it.
      for (const child of node.children) {
        const kid = this.known.get(child.id);
        if (kid === undefined) this.adopt(child, upserted, changed, spent, removed, fresh);
        else if (kid.node === child) this.place(kid, changed, spent, removed);
      }
      // Its own pruned children too: one may have been moved in and pruned since anyone looked.
      parents.add(known);
      const parent = known.parentId === null ? undefined : this.known.get(known.parentId);
      if (parent !== undefined) parents.add(parent);
    }
    for (const parent of parents) this.checkPruned(parent, removed, changed, spent);
    for (const known of this.rollUp(spent)) {
      fresh.delete(known);
      changed.add(known);
    }
    for (const known of changed) {
      if (!this.known.has(known.node.id)) continue;
      this.reparent(known);
      const row = wireRow(known.node, known.total, this.timeBase);
      if (sameRow(row, known.row)) continue;
      known.row = row;
      upserted.push(row);
    }
    // A node that joined and was pruned within one batch is only removed: a page applies the
    // removals first, and must not be left holding its row.
    const kept = removed.length === 0 ? upserted : upserted.filter((row) => this.known.has(row[0]));
    return { rootId: this.root?.id ?? null, timeBase: this.timeBase, upserted: kept, removed };
  }

  /** The rows as of the last refresh (so a new page and the batches after it agree). */
  snapshot(): TreeSnapshot {
    const rows: WireRow[] = [];
    if (this.root !== null) {
      for (const node of walkTree<WorkflowNode>(this.root)) {
        const known = this.known.get(node.id);
        if (known !== undefined) rows.push(known.row);
      }
    }
    return { rootId: rows[0]?.[0] ?? null, timeBase: this.timeBase, rows };
  }

  /** A node as of the last refresh; a node added since is found by a refresh first. */
  node(id: string): WorkflowNode | undefined {
    return this.known.get(id)?.node;
  }

  /**
   * One walk: a row built for each node, except that a node whose sent row still shows it keeps
   * its entry (a batch during a run, then one at its end, would otherwise build the first
   * batch's rows twice).
   */
  private rebuild(): TreeChanges {
    this.whole = false;
    this.dirty.clear();
    this.dirtyIds.clear();
    const beforeCount = this.knownCount;
    // The last walk's entries, met again in the same order unless the tree lost nodes since: a
    // node added since comes between them, so one cursor finds every entry that is still there.
    const last = this.index === null ? this.walked : null;
    let cursor = 0;
    // Otherwise (batches since the walk joined entries out of order; children pruned since) the
    // entries not met yet, by node: a node new since has no identity hash yet, so missing it costs
    // next to nothing, where a look-up by id hashes each new node's id (most of a walk's time).
    let sentByNode: Map<WorkflowNode, Known> | null = null;
    if (last === null && beforeCount > 0) sentByNode = byNode(this.index?.values() ?? []);
    // What this walk leaves (see Walk): most nodes get a row and no entry object.
    const nodes: WorkflowNode[] = [];
    const rows: WireRow[] = [];
    const entries: (Known | null)[] = [];
    // Each entry's parent, by its place (-1: the root), for the totals below.
    const parentAt: number[] = [];
    // The entries met again, by place (ascending), each with the row sent before (null: kept as
    // sent). Only these: after a batch of a few rows, most of a walk met nothing.
    const metAt: number[] = [];
    const metRow: (WireRow | null)[] = [];
    let seen = 0;
    // Whether any node has usage of its own: if none has, every total is undefined as built.
    let spent = false;
    const timeBase = this.timeBase;
    if (this.root !== null) {
      // Depth first, parents before children and siblings in order, as walkTree goes.
      const stack: WorkflowNode[] = [this.root];
      const stackParent: number[] = [-1];
      while (stack.length > 0) {
        const node = stack.pop() as WorkflowNode;
        const up = stackParent.pop() as number;
        // The entry sent for this node (null: sent without one), and its row.
        let sent: Known | null | undefined;
        let sentRow: WireRow | undefined;
        if (sentByNode !== null) {
          sent = sentByNode.get(node);
          sentRow = sent?.row;
        } else if (last !== null && last.nodes[cursor] === node) {
          sent = last.entries[cursor] ?? null;
          sentRow = last.rows[cursor];
          cursor += 1;
          // Its children were pruned since: the entries after it are looked up by node from here on.
          if (node.dropped.children !== (sent?.droppedChildren ?? 0)) sentByNode = byNode(entriesFrom(last, cursor));
        }
        let entry: Known | null;
        let row: WireRow;
        let keep = false;
        if (sentRow !== undefined) {
          seen += 1;
          keep = sent === null || sent === undefined ? showsLean(node, sentRow, timeBase) : stillShows(sent, timeBase);
        }
        if (keep) {
          entry = sent === null || sent === undefined ? null : renew(sent);
          row = sentRow as WireRow;
        } else {
          const made = entryOrRow(node, timeBase);
          if (isRow(made)) {
            entry = null;
            row = made;
          } else {
            entry = made;
            row = made.row;
          }
        }
        if (entry !== null && entry.own !== undefined) spent = true;
        const at = nodes.length;
        nodes.push(node);
        rows.push(row);
        entries.push(entry);
        parentAt.push(up);
        if (sentRow !== undefined) {
          metAt.push(at);
          metRow.push(keep ? null : sentRow);
        }
        const children = node.children;
        for (let i = children.length - 1; i >= 0; i -= 1) {
          stack.push(children[i] as WorkflowNode);
          stackParent.push(at);
        }
      }
    }
    // A row sent went unmet (pruned, or its id now on another node object): look for the rest by id.
    const before = seen === beforeCount ? null : this.known;
    // Entries found so, by place (ascending), with the row sent for each.
    const foundAt: number[] = [];
    const foundRow: WireRow[] = [];
    if (before !== null) {
      for (let i = 0, m = 0; i < nodes.length; i += 1) {
        if (m < metAt.length && metAt[m] === i) {
          m += 1;
          continue;
        }
        const other = before.get((nodes[i] as WorkflowNode).id);
        if (other === undefined) continue;
        seen += 1;
        foundAt.push(i);
        foundRow.push(other.row);
      }
    }
    if (spent) {
      // Subtree totals go on entries: every node gets one.
      for (let i = 0; i < nodes.length; i += 1) entries[i] ??= leanEntry(nodes[i] as WorkflowNode, rows[i] as WireRow);
      sumTotals(entries as Known[], parentAt);
    }
    const upserted: WireRow[] = [];
    for (let i = 0, m = 0, f = 0; i < nodes.length; i += 1) {
      const entry = entries[i] as Known | null;
      // The row sent before: undefined if none, null if the entry was kept as sent.
      let sent: WireRow | null | undefined;
      if (m < metAt.length && metAt[m] === i) sent = metRow[m++];
      else if (f < foundAt.length && foundAt[f] === i) sent = foundRow[f++];
      if (sent === null) {
        // Its row as sent shows all but the subtree's usage, summed again above (none, without an entry).
        if (entry === null || showsUsage(entry.row, entry.total)) continue;
        entry.row = wireRow(entry.node, entry.total, timeBase);
        rows[i] = entry.row;
        upserted.push(entry.row);
        continue;
      }
      let row = rows[i] as WireRow;
      if (entry !== null && entry.total !== entry.own) row = entry.row = wireRow(entry.node, entry.total, timeBase);
      if (sent !== undefined && sameRow(sent, row)) row = sent;
      else upserted.push(row);
      rows[i] = row;
      if (entry !== null) entry.row = row;
    }
    this.index = null;
    this.walked = { nodes, rows, entries, parents: parentAt };
    // Every row sent before was met again: nothing to look up to find what went.
    const removed: TreeChanges['removed'] = this.forgotten ? 'all' : before === null || seen === before.size ? [] : [...before.keys()].filter((id) => !this.known.has(id));
    this.forgotten = false;
    return { rootId: this.root?.id ?? null, timeBase: this.timeBase, upserted, removed };
  }

  /**
   * Whether `node` is in the viewed tree: it and each ancestor up to the first one sent are among
   * their parents' children (looked for from the end, where new children are).
   */
  private attached(node: WorkflowNode): boolean {
    for (let at = node; ; ) {
      const parent = at.parent;
      if (parent === null) return at === this.root;
      if (parent.children.lastIndexOf(at) < 0) return false;
      if (this.known.has(parent.id)) return true;
      at = parent;
    }
  }

  /**
   * A node not seen yet: its highest unseen ancestor's subtree joins (nothing outside the viewed
   * tree does). A node already sent that is now inside that subtree moved there.
   */
  private adopt(node: WorkflowNode, upserted: WireRow[], changed: Set<Known>, spent: Set<Known>, removed: string[], fresh: Set<Known>): void {
    let top = node;
    while (top.parent !== null && !this.known.has(top.parent.id)) top = top.parent;
    // Outside the viewed tree, or pruned before anyone looked (a step that started and was pruned
    // within one batch): it never joins.
    if (!this.attached(top)) return;
    // Most new nodes are leaves (a step just started): no walk for them.
    if (top.children.length === 0) {
      this.join(top, upserted, spent, fresh);
      return;
    }
    for (const added of walkTree<WorkflowNode>(top)) {
      const known = this.known.get(added.id);
      if (known === undefined) this.join(added, upserted, spent, fresh);
      else if (known.node === added) this.place(known, changed, spent, removed);
    }
  }

  /**
   * A sent node whose parent is not the one it was sent under moved (a replaced agent call hangs
   * beneath its replacement): it is listed under its new parent, its row goes again, and what its
   * subtree spent is summed again up both the old and the new ancestors.
   */
  private place(known: Known, changed: Set<Known>, spent: Set<Known>, removed: string[]): boolean {
    const parent = known.node.parent;
    if ((parent?.id ?? null) === known.parentId) return true;
    const from = known.parentId === null ? undefined : this.known.get(known.parentId);
    if (!this.attached(known.node)) {
      // Moved, then pruned (or under a node pruned) before anyone looked: it is gone (false).
      if (from !== undefined && known.total !== undefined) spent.add(from);
      this.forget(known.node.id, removed);
      return false;
    }
    this.reparent(known);
    changed.add(known);
    if (known.total !== undefined) {
      if (from !== undefined) spent.add(from);
      spent.add(known);
    }
    return true;
  }

  private join(added: WorkflowNode, upserted: WireRow[], spent: Set<Known>, fresh: Set<Known>): void {
    const entry = newKnown(added, this.timeBase);
    this.known.set(added.id, entry);
    const parent = entry.parentId === null ? undefined : this.known.get(entry.parentId);
    if (parent !== undefined) (parent.kids ??= []).push(added.id);
    upserted.push(entry.row);
    fresh.add(entry);
    if (entry.own !== undefined) spent.add(entry);
    // A child sent before that was placed under this node earlier in the batch, while it was unknown.
    for (const child of added.children) {
      const kid = this.known.get(child.id);
      if (kid === undefined || kid.parentId !== added.id) continue;
      (entry.kids ??= []).push(child.id);
      if (kid.total !== undefined) spent.add(entry);
    }
  }

  /** Retention pruned children of `known` since the last look: their rows (and subtrees) go. */
  private checkPruned(known: Known, removed: string[], changed: Set<Known>, spent: Set<Known>): void {
    const dropped = known.node.dropped.children;
    if (dropped === known.droppedChildren) return;
    known.droppedChildren = dropped;
    changed.add(known);
    // Pruned children's usage moved into the parent's own part.
    known.own = ownUsage(known.node);
    spent.add(known);
    if (known.kids === null) return;
    const current = new Set(known.node.children.map((child) => child.id));
    for (const id of [...known.kids]) {
      if (current.has(id)) continue;
      const kid = this.known.get(id);
      if (kid !== undefined && kid.node.parent !== known.node && kid.node.parent !== null) changed.add(kid);
      else this.forget(id, removed);
    }
  }

  /** Drops a row and its subtree's rows. */
  private forget(id: string, removed: string[]): void {
    const stack = [id];
    while (stack.length > 0) {
      const next = stack.pop() as string;
      const entry = this.known.get(next);
      if (entry === undefined) continue;
      this.known.delete(next);
      if (entry.parentId !== null) dropKid(this.known.get(entry.parentId), next);
      removed.push(next);
      if (entry.kids !== null) stack.push(...entry.kids);
    }
  }

  /** A node that moved (a replaced prompt) is listed under its new parent. */
  private reparent(known: Known): void {
    const parentId = known.node.parent?.id ?? null;
    if (parentId === known.parentId) return;
    if (known.parentId !== null) dropKid(this.known.get(known.parentId), known.node.id);
    known.parentId = parentId;
    const parent = parentId === null ? undefined : this.known.get(parentId);
    if (parent !== undefined) (parent.kids ??= []).push(known.node.id);
  }

  /** New subtree totals for the changed nodes and their ancestors, deepest first; returns those whose total changed. */
  private rollUp(spent: Set<Known>): Known[] {
    if (spent.size === 0) return [];
    const depth = new Map<Known, number>();
    for (const start of spent) {
      for (let entry: Known | undefined = start; entry !== undefined && !depth.has(entry); ) {
        depth.set(entry, depthOf(entry.node));
        entry = entry.parentId === null ? undefined : this.known.get(entry.parentId);
      }
    }
    const ordered = [...depth.keys()].sort((a, b) => (depth.get(b) as number) - (depth.get(a) as number));
    const out: Known[] = [];
    for (const entry of ordered) {
      const total = subtreeUsage(entry.own, totalsOf(this.known, entry.kids));
      if (sameUsage(total, entry.total)) continue;
      entry.total = total;
      out.push(entry);
    }
    return out;
  }
}

/** Whether a refresh after `changed` changes among `known` rows walks the whole tree. */
function walks(changed: number, known: number): boolean {
  return changed * WALK_WHEN_CHANGED > known;
}

function* totalsOf(known: ReadonlyMap<string, Known>, ids: Iterable<string> | null): Generator<TokenUsage> {
  if (ids === null) return;
  for (const id of ids) {
    const total = known.get(id)?.total;
    if (total !== undefined) yield total;
  }
}

function depthOf(node: WorkflowNode): number {
  let depth = 0;
  for (let n = node.parent; n !== null; n = n.parent) depth += 1;
  return depth;
}
