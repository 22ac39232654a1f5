import { inertText } from '../../util/inert-text.js';
import type { DatasetReport } from './eval-dataset.js';

/** A dataset report as a table: one row per recording (replay, tokens, cost, score), then the totals. */
export function formatDataset(report: DatasetReport): string {
  const header = ['recording', 'run', 'status', 'replay', 'tokens', 'cost', 'score'];
  const rows = report.rows.map((row) => [
    inertText(row.source),
    inertText(row.runId),
    row.status,
    row.replay === 'diverged' && row.divergence !== undefined ? `diverged at ${inertText(row.divergence.path)}` : row.replay,
    String(row.tokens),
    money(row.costUsd),
    row.score === null ? '-' : row.score.toFixed(2),
  ]);
  const { totals } = report;
  const replayed = totals.same + totals.diverged + totals.errors;
  rows.push([
    `total (${totals.recordings})`,
    '',
    '',
    replayed === 0 ? 'not replayed' : `${totals.same} same, ${totals.diverged} diverged${totals.errors > 0 ? `, ${totals.errors} failed` : ''}`,
    String(totals.tokens),
    money(totals.costUsd),
    totals.score === null ? '-' : totals.score.toFixed(2),
  ]);
  const widths = header.map((title, i) => Math.max(title.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  const out = [line(header), ...rows.map(line)];
  for (const row of report.rows) {
    if (row.error !== undefined) out.push('', `${inertText(row.source)}: the replay failed: ${inertText(row.error)}`);
  }
  return out.join('\n');
}

function money(usd: number | null): string {
  return usd === null ? '-' : `$${usd.toFixed(4)}`;
}
