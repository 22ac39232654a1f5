/**
 * The "Fork here" line of a stored run's step: the `groundswell runs fork` command that starts a
 * new run from this one, live from the selected step. The step is named by its path as
 * `readableStepKey` writes a durable step key (src/durable/replay/step-path.ts), worked out here
 * from the tree: a later same-named sibling keeps its number (`s#1`), a first one has none. No DOM
 * here (the details pane draws the line), so Node code and tests can use it too.
 */
import { shellWord, singleQuoted } from '../shell-word.js';
import type { StoredRun } from '../stream-messages.js';
import { nodes, parentOf, type PageNode } from './tree-model.js';

/** The workflow a node belongs to: its nearest workflow ancestor (the key's owner). */
function workflowOf(n: PageNode): PageNode | undefined {
  for (let p = parentOf(n); p; p = parentOf(p)) if (p.row.kind === 'workflow') return p;
  return undefined;
}

/** The nodes that belong to workflow `owner`, in tree order: its subtree, not into child workflows. */
function ownedBy(owner: PageNode): PageNode[] {
  const out: PageNode[] = [];
  const visit = (n: PageNode): void => {
    for (const id of n.children) {
      const child = nodes.get(id);
      if (!child) continue;
      out.push(child);
      if (child.row.kind !== 'workflow') visit(child);
    }
  };
  visit(owner);
  return out;
}

/**
 * `n`'s path segment: its name, and how many same-kind same-named nodes of its workflow started
 * before it (the durable counters count in start order; tree order breaks ties).
 */
function segment(n: PageNode): string {
  const owner = workflowOf(n);
  if (!owner) return n.row.name;
  const same = ownedBy(owner).filter((m) => m.row.kind === n.row.kind && m.row.name === n.row.name);
  const order = same.map((m, at) => ({ m, at, start: m.row.startTime ?? Number.POSITIVE_INFINITY }));
  order.sort((a, b) => a.start - b.start || a.at - b.at);
  const index = order.findIndex((o) => o.m === n);
  return index > 0 ? n.row.name + '#' + index : n.row.name;
}

/** The step's path from the root (`Pipeline › Child#2 › score`), as `runs fork --at` takes it. */
export function stepPath(step: PageNode): string {
  const parts = [segment(step)];
  for (let w = workflowOf(step); w; w = workflowOf(w)) parts.unshift(segment(w));
  return parts.join(' \u203A ');
}

/** The command that forks the stored run at the step. */
export function forkCommand(stored: StoredRun, path: string): string {
  return 'groundswell runs fork ' + shellWord(stored.runId) + ' --at ' + singleQuoted(path) + ' ' + stored.storeFlag + ' --workflows <module>';
}
