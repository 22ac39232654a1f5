import type { NodeKind, WorkflowStatus } from '../types/status.js';
import type { TokenUsage } from '../types/usage.js';

/** One line of the page's tree: what a row shows, without events, logs or state (those load on demand). */
export interface NodeRow {
  readonly id: string;
  readonly parentId: string | null;
  readonly name: string;
  readonly kind: NodeKind;
  readonly status: WorkflowStatus;
  readonly startTime?: number;
  readonly duration?: number;
  /** A node a durable run replayed: it ran in an earlier process, and its times are from then. */
  readonly replayed?: true;
  /** The subtree's tokens and cost (`usageRollup` semantics: own usage, pruned children, children). */
  readonly usage?: TokenUsage;
  /** How many events and logs the node has had (kept plus dropped): a change means new details. */
  readonly events: number;
  readonly logs: number;
}

/**
 * A row as the page's stream carries it: its fields by position, in NodeRow's order. A run of
 * 20,000 steps goes to an open page in one batch; without the keys that batch is half the bytes
 * and about half the server's work to write, which a watched run pays for. Times are whole
 * microseconds (integers print faster than fractions): the start after the message's `timeBase`
 * (epoch milliseconds), and the duration. Absent values are null. The last two fields are left
 * out while they hold their defaults (not replayed, no usage), as on most rows: a tenth of a
 * batch's bytes. Imports types only: the page's bundle includes this file.
 */
export type WireRow = readonly [
  id: string,
  parentId: string | null,
  name: string,
  kind: NodeKind,
  status: WorkflowStatus,
  events: number,
  logs: number,
  startUs: number | null,
  durationUs: number | null,
  replayed?: 1 | 0,
  usage?: TokenUsage,
];

/** The row a wire row stands for (what `/api/tree` and the page work with), its times from `timeBase`. */
export function fromWire(wire: WireRow, timeBase: number): NodeRow {
  const [id, parentId, name, kind, status, events, logs, startUs, durationUs, replayed, usage] = wire;
  const row: { -readonly [K in keyof NodeRow]: NodeRow[K] } = { id, parentId, name, kind, status, events, logs };
  if (startUs !== null) row.startTime = timeBase + startUs / 1000;
  if (durationUs !== null) row.duration = durationUs / 1000;
  if (replayed === 1) row.replayed = true;
  if (usage !== undefined) row.usage = usage;
  return row;
}

/** Milliseconds as whole microseconds, as a wire row holds them (after `from` for a start). */
export function toMicros(ms: number | undefined, from = 0): number | null {
  return ms === undefined ? null : Math.round((ms - from) * 1000);
}
