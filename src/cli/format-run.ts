import type { RunRecord } from '../durable/store/run-record.js';
import type { LeaseHolder } from '../durable/store/run-store.js';
import { inertText } from '../util/inert-text.js';

/**
 * One line per run for `runs list`: id, status, root, age, duration, tokens, cost, what it waits
 * for; for a running run, its lease `holder` when the caller read it (null: nobody holds it).
 */
export function runLine(run: RunRecord, holder?: LeaseHolder | null): string {
  const waiting = run.waitingFor === undefined ? '' : `  waiting for "${inertText(run.waitingFor.name)}"`;
  const held = holder === undefined || run.status !== 'running' ? '' : `  ${holderText(holder)}`;
  return [run.id, run.status.padEnd(9), inertText(run.rootName), new Date(run.createdAt).toISOString(), duration(run), ...spent(run)].join('  ') + waiting + held;
}

/**
 * Tokens and cost as stored: a run stores its usage when it suspends and when it ends, not at
 * each step (one write per step), so a running run shows what it had spent when it last waited.
 */
function spent(run: RunRecord): string[] {
  if (run.usage === undefined) return run.status === 'running' ? ['usage not yet stored'] : ['- tokens', '-'];
  const tokens = `${run.usage.inputTokens + run.usage.outputTokens} tokens${run.status === 'running' ? ' so far' : ''}`;
  return [tokens, run.usage.costUsd === undefined ? '-' : `$${run.usage.costUsd.toFixed(4)}`];
}

/** Whether a running run's holder still works on it: a run left `running` by a killed process says so here. */
function holderText(holder: LeaseHolder | null): string {
  if (holder === null) return 'no holder';
  const until = new Date(holder.expiresAt).toISOString();
  if (holder.state === 'alive') return `holder alive: ${inertText(holder.owner)} (lease until ${until})`;
  if (holder.state === 'expired') return `holder gone: lease expired at ${until}`;
  return `holder gone: process exited (${inertText(holder.owner)})`;
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
