import type { NodeRow } from '../wire-row.js';

/** One node as the page holds it: the server's row, its children in order, and whether the user opened it. */
export interface PageNode {
  row: NodeRow;
  readonly children: string[];
  /** undefined: open by depth until the user says otherwise. */
  open: boolean | undefined;
}

/** Every row the server sent, by id. */
export const nodes = new Map<string, PageNode>();

export function parentOf(n: PageNode): PageNode | undefined {
  return n.row.parentId !== null ? nodes.get(n.row.parentId) : undefined;
}

export function upsert(row: NodeRow): void {
  let n = nodes.get(row.id);
  if (!n) {
    n = { row, children: [], open: undefined };
    nodes.set(row.id, n);
    link(n);
    return;
  }
  const before = n.row.parentId;
  n.row = row;
  if (before !== row.parentId) {
    unlink(row.id, before);
    link(n);
  }
}

export function remove(id: string): void {
  const n = nodes.get(id);
  if (n) {
    unlink(id, n.row.parentId);
    nodes.delete(id);
  }
}

function link(n: PageNode): void {
  parentOf(n)?.children.push(n.row.id);
}

function unlink(id: string, parentId: string | null): void {
  const p = parentId !== null ? nodes.get(parentId) : undefined;
  if (!p) return;
  const i = p.children.indexOf(id);
  if (i >= 0) p.children.splice(i, 1);
}
