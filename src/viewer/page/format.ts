import type { BudgetDimension } from '../../types/budget.js';
import type { TokenUsage } from '../../types/usage.js';
import type { NodeRow } from '../wire-row.js';

/** What the page says of a node a durable run replayed (its row's badge title, its details). */
export const REPLAYED_NOTE = 'ran in an earlier process; its times are from then';

/** A duration for people: `<1ms`, `340ms`, `2.31s`, `4m07s`; '' when there is none. */
export function fmtMs(ms: number | null | undefined): string {
  if (ms === undefined || ms === null || !isFinite(ms)) return '';
  // Durations are whole milliseconds: 0 means it took less than one.
  if (ms < 1) return '<1ms';
  if (ms < 1000) return Math.round(ms) + 'ms';
  if (ms < 60000) return (ms / 1000).toFixed(2) + 's';
  const s = Math.round(ms / 1000);
  return Math.floor(s / 60) + 'm' + String(s % 60).padStart(2, '0') + 's';
}

function tokens(u: TokenUsage | null | undefined): number {
  return u ? u.inputTokens + u.outputTokens : 0;
}

export function fmtTok(u: TokenUsage | null | undefined): string {
  const t = tokens(u);
  return t ? t.toLocaleString('en-US') : '';
}

export function fmtCost(u: TokenUsage | null | undefined): string {
  return u && typeof u.costUsd === 'number' ? '$' + u.costUsd.toFixed(4) : '';
}

export function usageText(u: TokenUsage | null | undefined): string {
  if (!u) return 'none';
  let s = u.inputTokens.toLocaleString('en-US') + ' in / ' + u.outputTokens.toLocaleString('en-US') + ' out';
  if (u.cacheReadInputTokens) s += ', ' + u.cacheReadInputTokens.toLocaleString('en-US') + ' cache read';
  if (u.cacheCreationInputTokens) s += ', ' + u.cacheCreationInputTokens.toLocaleString('en-US') + ' cache write';
  if (typeof u.costUsd === 'number') s += ' \u00B7 $' + u.costUsd.toFixed(4);
  return s;
}

/** A budget amount as the tree debugger writes it: `$0.1234`, `120 ms`, or the count. */
export function fmtAmount(dimension: BudgetDimension, value: number): string {
  if (dimension === 'usd') return '$' + value.toFixed(4);
  if (dimension === 'wallMs') return Math.round(value) + ' ms';
  return String(value);
}

/** A running node's duration grows with the clock; a finished one's is what the tree says. */
export function durationOf(row: NodeRow): number | undefined {
  if (typeof row.duration === 'number') return row.duration;
  if (row.status === 'running' && typeof row.startTime === 'number') return Date.now() - row.startTime;
  return undefined;
}

/** JSON (or JSON text) indented; anything else as it is. */
export function pretty(value: unknown): string {
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value), null, 2);
    } catch {
      return value;
    }
  }
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

export function time(ts: unknown): string {
  return typeof ts === 'number' ? new Date(ts).toISOString().replace('T', ' ').replace('Z', '') : '';
}
