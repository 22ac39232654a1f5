import type { RunRecord } from '../durable/store/run-record.js';
import { inertText } from '../util/inert-text.js';

/** One line per run for `runs list`: id, status, root, age, duration, tokens, cost. */
export function runLine(run: RunRecord): string {
  const tokens = run.usage === undefined ? '-' : String(run.usage.inputTokens + run.usage.outputTokens);
  const cost = run.usage?.costUsd === undefined ? '-' : `$${run.usage.costUsd.toFixed(4)}`;
  const waiting = run.waitingFor === undefined ? '' : `  waiting for "${inertText(run.waitingFor.name)}"`;
  return [run.id, run.status.padEnd(9), inertText(run.rootName), new Date(run.createdAt).toISOString(), duration(run), `${tokens} tokens`, cost].join('  ') + waiting;
}

/** The details `runs show` prints above the tree; stored names and messages are escaped, each stays on its line. */
export function runDetails(run: RunRecord): string[] {
  const lines = [
    `run       ${run.id}`,
    `workflow  ${inertText(run.rootName)}`,
    `status    ${run.status}`,
    `created   ${new Date(run.createdAt).toISOString()}`,
    `updated   ${new Date(run.updatedAt).toISOString()} (${duration(run)})`,
  ];
  if (run.usage !== undefined) {
    const u = run.usage;
    lines.push(`tokens    ${u.inputTokens} in, ${u.outputTokens} out${u.costUsd === undefined ? '' : `, $${u.costUsd.toFixed(4)}`}`);
  }
  if (run.waitingFor !== undefined) {
    const until = run.waitingFor.timeoutAt === undefined ? '' : ` until ${new Date(run.waitingFor.timeoutAt).toISOString()}`;
    lines.push(`waiting   for signal "${inertText(run.waitingFor.name)}"${until}`);
  }
  if (run.error !== undefined) lines.push(`error     ${inertText(run.error.name)}: ${inertText(run.error.message)}`);
  if (run.result !== undefined) lines.push(`result    ${inertText(JSON.stringify(run.result).slice(0, 500))}`);
  return lines;
}

function duration(run: RunRecord): string {
  const ms = run.updatedAt - run.createdAt;
  return ms < 1_000 ? `${ms} ms` : `${(ms / 1_000).toFixed(1)} s`;
}
