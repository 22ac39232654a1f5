import type { WorkflowNode } from '../types/node.js';
import type { WorkflowStatus } from '../types/status.js';
import type { TokenUsage } from '../types/usage.js';
import { totalTokens } from '../util/usage.js';
import { usageRollup } from './usage-rollup.js';

export const STATUS_SYMBOL: Readonly<Record<WorkflowStatus, string>> = {
  idle: '○',
  running: '◐',
  completed: '✓',
  failed: '✗',
  cancelled: '⊘',
};

export interface TreeStringOptions {
  /** Children shown per node before the rest are summarised (default 100). */
  maxChildren?: number;
  /** Show each workflow's last state snapshot (already redacted) (default true). */
  showState?: boolean;
}

/** One line per node, box-drawing indentation, status symbol, kind, duration and failures. */
export function renderTree(root: WorkflowNode, options: TreeStringOptions = {}): string {
  const maxChildren = options.maxChildren ?? 100;
  const showState = options.showState ?? true;
  const lines: string[] = [];
  const usage = usageRollup(root);
  // Iterative so a chain thousands of workflows deep prints without overflowing the stack.
  const stack: Array<{ node: WorkflowNode; prefix: string; branch: string }> = [{ node: root, prefix: '', branch: '' }];
  while (stack.length > 0) {
    const { node, prefix, branch } = stack.pop() as { node: WorkflowNode; prefix: string; branch: string };
    lines.push(prefix + branch + describeNode(node, usage.get(node)));
    const childPrefix = prefix + (branch === '' ? '' : branch === '└─ ' ? '   ' : '│  ');
    const extra: string[] = [];
    if (showState && node.stateSnapshot && Object.keys(node.stateSnapshot).length > 0) {
      extra.push(`state ${JSON.stringify(node.stateSnapshot)}`);
    }
    const why = ancestryLine(node);
    if (why !== '') extra.push(why);
    const checkpoint = checkpointLine(node);
    if (checkpoint !== '') extra.push(checkpoint);
    for (const event of node.events) {
      if (event.type === 'goalSignOff') {
        const note = event.judgeFailed ? ' (judge failed)' : event.verdict === 'reject' ? ` — missing: ${event.missing}` : '';
        extra.push(`sign-off ${event.verdict}: ${event.goal}${note}`);
      }
    }
    if (node.dropped.children > 0) extra.push(`… ${node.dropped.children} earlier finished children pruned by retention`);
    const shown = node.children.slice(0, maxChildren);
    const hidden = node.children.length - shown.length;
    if (hidden > 0) extra.push(`… ${hidden} more children`);
    const hasChildren = shown.length > 0;
    for (const line of extra) lines.push(childPrefix + (hasChildren ? '│  ' : '   ') + line);
    for (let i = shown.length - 1; i >= 0; i -= 1) {
      stack.push({ node: shown[i] as WorkflowNode, prefix: childPrefix, branch: i === shown.length - 1 ? '└─ ' : '├─ ' });
    }
  }
  return lines.join('\n');
}

function describeNode(node: WorkflowNode, usage: TokenUsage | undefined): string {
  let line = `${STATUS_SYMBOL[node.status]} ${node.name} [${node.kind}]`;
  if (node.duration !== undefined) line += ` ${formatDuration(node.duration)}`;
  if (usage !== undefined && totalTokens(usage) > 0) line += ` · ${formatUsage(usage)}`;
  if (node.status === 'running') line += ' (running)';
  const notes = notesOf(node);
  if (notes !== '') line += ` ${notes}`;
  const failure = lastError(node);
  if (failure !== undefined) line += ` — ${failure}`;
  return line;
}

/** `why Mission: … · Goal: …` for an agent call that was given a goal ancestry. */
function ancestryLine(node: WorkflowNode): string {
  if (node.kind !== 'agentPrompt') return '';
  for (const event of node.events) {
    if (event.type === 'agentPromptStart' && event.goalAncestry) {
      const a = event.goalAncestry;
      const parts = [
        a.mission && `Mission: ${a.mission}`,
        a.project && `Project: ${a.project}`,
        a.goal && `Goal: ${a.goal}`,
        a.task && `Task: ${a.task}`,
      ].filter((part): part is string => typeof part === 'string' && part !== '');
      return parts.length > 0 ? `why ${parts.join(' · ')}` : '';
    }
  }
  return '';
}

/** The latest trajectory checkpoint of an agent call: revision, assessment and next action. */
function checkpointLine(node: WorkflowNode): string {
  if (node.kind !== 'agentPrompt') return '';
  const events = node.events;
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i];
    if (event?.type === 'trajectoryCheckpoint') {
      const next = event.checkpoint.nextAction;
      return `checkpoint r${event.revision} ${event.assessment} → ${next.length > 80 ? `${next.slice(0, 77)}...` : next}`;
    }
  }
  return '';
}

/** Short markers for what a user debugging the node wants to see at a glance. */
function notesOf(node: WorkflowNode): string {
  let apiErrors = 0;
  let cache = '';
  let attempts = 0;
  let model = '';
  for (const event of node.events) {
    if (event.type === 'agentPromptStart') model = event.model;
    else if (event.type === 'apiError') apiErrors += 1;
    else if (event.type === 'cacheHit') cache = '(cache hit)';
    else if (event.type === 'promptReplaced') cache = '(replaces the answer below)';
    else if (event.type === 'stepEnd') attempts = event.attempts;
  }
  const notes: string[] = [];
  if (model) notes.push(`(${model})`);
  if (cache) notes.push(cache);
  if (attempts > 1) notes.push(`(${attempts} attempts)`);
  if (apiErrors > 0) notes.push(`(${apiErrors} API error${apiErrors > 1 ? 's' : ''} retried or failed)`);
  return notes.join(' ');
}

function lastError(node: WorkflowNode): string | undefined {
  const events = node.events;
  for (let i = events.length - 1; i >= 0; i -= 1) {
    const event = events[i];
    if (event?.type === 'error') return `${event.error.name}: ${event.error.message}`;
    if (event?.type === 'agentPromptEnd' && event.error) return `${event.error.name}: ${event.error.message}`;
    if ((event?.type === 'toolInvocation' || event?.type === 'mcpEvent') && event.isError) {
      const reason = event.type === 'toolInvocation' && event.blockedReason ? `blocked: ${event.blockedReason}` : (event.output ?? '');
      return reason.length > 120 ? `${reason.slice(0, 117)}...` : reason;
    }
  }
  return undefined;
}

/** `1,200 in / 340 out tok (+900 cache read) $0.0041` */
export function formatUsage(usage: TokenUsage): string {
  let text = `${usage.inputTokens.toLocaleString('en-US')} in / ${usage.outputTokens.toLocaleString('en-US')} out tok`;
  const cache: string[] = [];
  if (usage.cacheCreationInputTokens > 0) cache.push(`${usage.cacheCreationInputTokens.toLocaleString('en-US')} cache write`);
  if (usage.cacheReadInputTokens > 0) cache.push(`${usage.cacheReadInputTokens.toLocaleString('en-US')} cache read`);
  if (cache.length > 0) text += ` (+${cache.join(', ')})`;
  if (usage.costUsd !== undefined) text += ` $${usage.costUsd.toFixed(4)}`;
  return text;
}

export function formatDuration(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)}ms`;
  if (ms < 1000) return `${ms.toFixed(1)}ms`;
  return `${(ms / 1000).toFixed(2)}s`;
}
