import type { WorkflowNode } from '../types/node.js';
import type { TokenUsage } from '../types/usage.js';
import { sameUsage } from '../util/usage.js';
import { toMicros, type WireRow } from './wire-row.js';

/**
 * A node's row as the page's stream sends it, its start after `timeBase` (`dropped` may be
 * passed when the caller read it already: a live node builds it on each read).
 */
export function wireRow(node: WorkflowNode, rollup: TokenUsage | undefined, timeBase: number, dropped: WorkflowNode['dropped'] = node.dropped): WireRow {
  const id = node.id;
  const parentId = node.parent?.id ?? null;
  const events = eventCount(node) + dropped.events;
  const logs = node.logs.length + dropped.logs;
  const start = toMicros(node.startTime, timeBase);
  const duration = toMicros(node.duration);
  // Trailing defaults are left out (see WireRow): most rows end at the duration.
  if (rollup !== undefined) return [id, parentId, node.name, node.kind, node.status, events, logs, start, duration, node.replayed === true ? 1 : 0, rollup];
  if (node.replayed === true) return [id, parentId, node.name, node.kind, node.status, events, logs, start, duration, 1];
  return [id, parentId, node.name, node.kind, node.status, events, logs, start, duration];
}

/** A live tree counts its events without rebuilding them; a loaded one has them as a list. */
function eventCount(node: WorkflowNode): number {
  const count = (node as { readonly eventCount?: unknown }).eventCount;
  return typeof count === 'number' ? count : node.events.length;
}

/**
 * Whether `row` still shows `node` in all but the usage rollup (which the caller sums again):
 * `wireRow` without building one, so a walk keeps a sent row for each node that did not change.
 */
export function rowShows(row: WireRow, node: WorkflowNode, timeBase: number, dropped: WorkflowNode['dropped'] = node.dropped): boolean {
  return (
    row[4] === node.status &&
    row[5] === eventCount(node) + dropped.events &&
    row[8] === toMicros(node.duration) &&
    row[7] === toMicros(node.startTime, timeBase) &&
    row[6] === node.logs.length + dropped.logs &&
    row[1] === (node.parent?.id ?? null) &&
    row[2] === node.name &&
    row[3] === node.kind &&
    row[0] === node.id &&
    (row[9] ?? 0) === (node.replayed === true ? 1 : 0)
  );
}

/** Whether two rows show the same thing: a batch sends only rows that differ from what was sent. */
export function sameRow(a: WireRow, b: WireRow): boolean {
  for (let i = 0; i < REPLAYED_AT; i += 1) if (a[i] !== b[i]) return false;
  return (a[REPLAYED_AT] ?? 0) === (b[REPLAYED_AT] ?? 0) && showsUsage(a, b[USAGE_AT]);
}

/** Whether `row` shows `usage` as its subtree's usage. */
export function showsUsage(row: WireRow, usage: TokenUsage | undefined): boolean {
  return sameUsage(row[USAGE_AT], usage);
}

const REPLAYED_AT = 9;
const USAGE_AT = 10;
