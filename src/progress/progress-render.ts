import type { WorkflowStatus } from '../types/status.js';
import { inertText } from '../util/inert-text.js';
import { COUNTED_KINDS, type KindCounts, type ProgressState } from './progress-state.js';

const LABELS: Record<(typeof COUNTED_KINDS)[number], string> = {
  workflow: 'workflows',
  step: 'steps',
  task: 'tasks',
  agentPrompt: 'agent calls',
  toolCall: 'tool calls',
  mcpCall: 'MCP calls',
  reflection: 'reflections',
};

const MARKS: Record<WorkflowStatus, string> = { idle: '·', running: '…', completed: '✓', failed: '✗', cancelled: '⊘', suspended: '⏸' };

/** `12.3s`, `4m05s`: short enough for a status line, exact enough to see it move. */
export function formatElapsed(ms: number): string {
  const seconds = Math.max(0, ms) / 1000;
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const whole = Math.floor(seconds);
  return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
}

/** 12345 → `12,345`, the same on every machine (no locale). */
function grouped(n: number): string {
  return String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function kindPart(label: string, counts: KindCounts): string | undefined {
  const parts: string[] = [];
  if (counts.running > 0) parts.push(`${counts.running} running`);
  if (counts.done > 0) parts.push(`${counts.done} done`);
  if (counts.failed > 0) parts.push(`${counts.failed} failed`);
  if (counts.cancelled > 0) parts.push(`${counts.cancelled} cancelled`);
  if (counts.suspended > 0) parts.push(`${counts.suspended} waiting`);
  return parts.length === 0 ? undefined : `${label} ${parts.join(', ')}`;
}

/** `steps 3 running, 12 done · agent calls 1 running, 5 done`: kinds with nothing yet are left out. */
export function countsLine(state: ProgressState): string {
  const parts = COUNTED_KINDS.map((kind) => kindPart(LABELS[kind], state.counts[kind])).filter((part): part is string => part !== undefined);
  return parts.length === 0 ? 'nothing started yet' : parts.join(' · ');
}

/**
 * `tokens 12,345 in / 678 out · $0.0123` (cost only when a price was configured), then how the
 * root's budget stands, how many agent calls wait for budget and the latest budget warning or
 * refusal, when there are any.
 */
export function usageLine(state: ProgressState): string {
  const cost = state.costUsd === undefined ? '' : ` · $${state.costUsd.toFixed(4)}`;
  const standing = state.rootBudget === undefined ? '' : ` · ${state.rootBudget}`;
  const waits = state.budgetWaits.size === 0 ? '' : ` · ${state.budgetWaits.size} waiting for budget`;
  const budget = state.budget === undefined ? '' : ` · ${state.budget}`;
  return `tokens ${grouped(state.inputTokens)} in / ${grouped(state.outputTokens)} out${cost}${standing}${waits}${budget}`;
}

// Names come from the run and are escaped where they are placed (`inertText`): a name can neither
// act on the terminal nor add a line, which would also break the region's cursor arithmetic.

/** The first line: mark, root name, status and elapsed time. */
function headLine(state: ProgressState, elapsedMs: number): string {
  // A suspended run is waiting, not failed: say for what.
  const status =
    state.rootStatus === 'suspended' && state.waitingFor !== undefined ? `suspended (waiting for ${inertText(state.waitingFor)})` : state.rootStatus;
  return `${MARKS[state.rootStatus]} ${inertText(state.rootName) || 'run'} ${status} ${formatElapsed(elapsedMs)} · ${usageLine(state)}`;
}

/**
 * `running: fetch (in Triage), summarise (+3 more)`: the oldest running steps, tasks and agent
 * calls (what the run waits on), each with its workflow unless that is the root (named above).
 */
function runningLine(state: ProgressState, max: number): string | undefined {
  const names: string[] = [];
  let more = 0;
  // The root is the oldest running node: the display starts a fresh state at its start.
  const rootId = state.running.keys().next().value;
  for (const [id, node] of state.running) {
    if (node.kind === 'workflow') continue;
    if (names.length >= max) {
      more++;
      continue;
    }
    const name =
      node.kind !== 'agentPrompt' ? inertText(node.name) : `agent ${inertText(node.name)}${state.budgetWaits.has(id) ? ' (waiting for budget)' : ''}`;
    const workflow = node.workflowId === rootId ? undefined : state.running.get(node.workflowId);
    names.push(workflow === undefined ? name : `${name} (in ${inertText(workflow.name)})`);
  }
  if (names.length === 0) return undefined;
  return `running: ${names.join(', ')}${more > 0 ? ` (+${more} more)` : ''}`;
}

/** The TTY region: head, counts, what is running (while anything is). */
export function regionLines(state: ProgressState, elapsedMs: number, maxRunning: number): string[] {
  const lines = [headLine(state, elapsedMs), `  ${countsLine(state)}`];
  const running = state.rootStatus === 'running' ? runningLine(state, maxRunning) : undefined;
  if (running !== undefined) lines.push(`  ${running}`);
  return lines;
}

/** One plain line for a node that finished and is worth a line of its own. */
export function finishLine(finished: { kind: string; name: string; status: WorkflowStatus; duration?: number }, waitingFor?: string): string {
  const label = finished.kind === 'agentPrompt' ? 'agent' : finished.kind === 'toolCall' ? 'tool' : finished.kind;
  const time = finished.duration === undefined ? '' : ` in ${formatElapsed(finished.duration)}`;
  const status = finished.status === 'suspended' && waitingFor !== undefined ? `suspended (waiting for ${inertText(waitingFor)})` : finished.status;
  return `${MARKS[finished.status]} ${label} ${inertText(finished.name)} ${status}${time}`;
}

/** Cuts a line to the terminal's width, so a redraw never wraps (a wrapped line would break the cursor arithmetic). */
export function fit(line: string, columns: number): string {
  const chars = Array.from(line);
  return chars.length <= columns ? line : `${chars.slice(0, Math.max(0, columns - 1)).join('')}…`;
}
