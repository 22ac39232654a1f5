import type { WorkflowNode } from '../types/node.js';
import type { WorkflowStatus } from '../types/status.js';

/** A node printed on its own line, or a run of look-alike siblings printed as one. */
export type SiblingEntry = { node: WorkflowNode } | { run: WorkflowNode[] };

const FINAL: ReadonlySet<WorkflowStatus> = new Set<WorkflowStatus>(['completed', 'failed', 'cancelled', 'suspended']);

/**
 * Groups consecutive siblings with the same kind and name into runs (two or more). Only finished
 * nodes fold: a running or idle one is what a reader is looking for, so it keeps its own line.
 */
export function foldSiblings(children: readonly WorkflowNode[]): SiblingEntry[] {
  const entries: SiblingEntry[] = [];
  let i = 0;
  while (i < children.length) {
    const first = children[i] as WorkflowNode;
    let end = i + 1;
    if (FINAL.has(first.status)) {
      while (end < children.length) {
        const next = children[end] as WorkflowNode;
        if (next.kind !== first.kind || next.name !== first.name || !FINAL.has(next.status)) break;
        end += 1;
      }
    }
    entries.push(end - i >= 2 ? { run: children.slice(i, end) } : { node: first });
    i = end;
  }
  return entries;
}
