import type { WorkflowNode } from '../types/node.js';
import type { WorkflowStatus } from '../types/status.js';
import type { TokenUsage } from '../types/usage.js';
import { inertText } from '../util/inert-text.js';
import { walkTree } from '../util/tree-walk.js';
import { addUsage, sameUsage, totalTokens, ZERO_USAGE } from '../util/usage.js';
import { budgetsOf, budgetStandingText } from './budget-standing.js';
import { validateTreeStringOptions } from './tree-string-options.schema.js';
import { checkpointText, failureText, nodeEvents, type NodeEvents } from './node-events.js';
import { foldSiblings, type SiblingEntry } from './sibling-runs.js';
import { usageRollup } from './usage-rollup.js';

const STATUS_SYMBOL: Readonly<Record<WorkflowStatus, string>> = {
  idle: '○',
  running: '◐',
  completed: '✓',
  failed: '✗',
  cancelled: '⊘',
  suspended: '⏸',
};

export interface TreeStringOptions {
  /** Children shown per node before the rest are summarised (default 100). */
  maxChildren?: number;
  /** Show each workflow's last state snapshot (already redacted) (default true). */
  showState?: boolean;
  /** Levels printed below the node (0: the node alone); deeper nodes are counted (default: all). */
  maxDepth?: number;
  /**
   * Fold runs of finished look-alike siblings into one `× N name` line, print a token figure only
   * where it differs from the only child's, and each `why` line once (default false).
   */
  compact?: boolean;
  /** Cut lines longer than this many columns (code points) with `…` (default: no limit; min 20). */
  width?: number;
}

type Item =
  | { node: WorkflowNode; depth: number; prefix: string; branch: string }
  | { run: WorkflowNode[]; depth: number; prefix: string; branch: string };

/**
 * Levels drawn with indentation. Deeper lines start with `[depth N]` instead: indenting every
 * level makes the text grow with depth × nodes, and a chain 20,000 deep would not fit a string.
 */
const MAX_INDENT_DEPTH = 64;

/** What a line at `depth` starts with: the drawn indentation, or the depth marker past the limit. */
function lead(prefix: string, depth: number): string {
  return depth > MAX_INDENT_DEPTH ? `[depth ${depth}] ` : prefix;
}

/**
 * One line per node, box-drawing indentation, status symbol, kind, duration and failures. Names,
 * messages and state are escaped (`inertText`): printed to a terminal they are only shown, and
 * each stays on its own line.
 */
export function renderTree(root: WorkflowNode, options: TreeStringOptions = {}): string {
  validateTreeStringOptions(options);
  const maxChildren = options.maxChildren ?? 100;
  const showState = options.showState ?? true;
  const maxDepth = options.maxDepth ?? Number.POSITIVE_INFINITY;
  const compact = options.compact ?? false;
  const lines: string[] = [];
  const usage = usageRollup(root);
  const whysShown = new Set<string>();
  // Iterative so a chain thousands of workflows deep prints without overflowing the stack.
  const stack: Item[] = [{ node: root, depth: 0, prefix: '', branch: '' }];
  while (stack.length > 0) {
    const item = stack.pop() as Item;
    const { prefix, branch, depth } = item;
    if ('run' in item) {
      lines.push(lead(prefix, depth) + branch + inertText(describeRun(item.run, usage)));
      continue;
    }
    const { node } = item;
    const cut = depth >= maxDepth && node.children.length > 0;
    const shown = cut ? [] : node.children.slice(0, maxChildren);
    const onlyChild = node.children.length === 1 ? shown[0] : undefined;
    // The only child prints the same figure one line down; repeating it is noise.
    const own = compact && onlyChild !== undefined && sameUsage(usage.get(node), usage.get(onlyChild)) ? undefined : usage.get(node);
    const seen = nodeEvents(node);
    lines.push(lead(prefix, depth) + branch + inertText(describeNode(node, own, seen)));
    const indented = prefix + (branch === '' ? '' : branch === '└─ ' ? '   ' : '│  ');
    const extraPrefix = depth > MAX_INDENT_DEPTH ? `${lead(prefix, depth)}${branch === '' ? '' : '   '}` : indented;
    // Children past the limit are marked, not indented: the prefix stops growing.
    const childPrefix = depth >= MAX_INDENT_DEPTH ? '' : indented;
    const extra: string[] = [];
    if (showState && node.stateSnapshot && Object.keys(node.stateSnapshot).length > 0) {
      extra.push(`state ${JSON.stringify(node.stateSnapshot)}`);
    }
    // Only an agent call has a why and a checkpoint line.
    const isCall = node.kind === 'agentPrompt';
    const why = isCall ? (seen.why ?? '') : '';
    if (why !== '' && !(compact && whysShown.has(why))) extra.push(why);
    whysShown.add(why);
    if (isCall && seen.checkpoint !== undefined) extra.push(checkpointText(seen.checkpoint));
    for (const signOff of seen.signOffs) extra.push(signOff);
    // How each budget set here stands, then its warnings and refusals.
    for (const budget of budgetsOf(node)) extra.push(budgetStandingText(budget, node.duration));
    for (const budget of seen.budgets) extra.push(budget);
    if (node.dropped.children > 0) extra.push(`… ${node.dropped.children} earlier finished children pruned by retention`);
    const hidden = cut ? 0 : node.children.length - shown.length;
    if (hidden > 0) extra.push(`… ${hidden} more children`);
    if (cut) {
      const below = countBelow(node);
      extra.push(`… ${below} more node${below === 1 ? '' : 's'}`);
    }
    const hasChildren = shown.length > 0;
    for (const line of extra) lines.push(extraPrefix + (hasChildren ? '│  ' : '   ') + inertText(line));
    const entries: SiblingEntry[] = compact ? foldSiblings(shown) : shown.map((child) => ({ node: child }));
    for (let i = entries.length - 1; i >= 0; i -= 1) {
      const entry = entries[i] as SiblingEntry;
      const childBranch = i === entries.length - 1 ? '└─ ' : '├─ ';
      stack.push('run' in entry ? { run: entry.run, depth: depth + 1, prefix: childPrefix, branch: childBranch } : { node: entry.node, depth: depth + 1, prefix: childPrefix, branch: childBranch });
    }
  }
  return options.width === undefined ? lines.join('\n') : lines.map((line) => cutToWidth(line, options.width as number)).join('\n');
}

/** `× 6 classify [step] ✓ 7.20s · 8,400 tok`: per-status counts when the run's statuses differ. */
function describeRun(run: readonly WorkflowNode[], usage: ReadonlyMap<WorkflowNode, TokenUsage>): string {
  const first = run[0] as WorkflowNode;
  const counts = new Map<WorkflowStatus, number>();
  let total: TokenUsage | undefined;
  for (const node of run) {
    counts.set(node.status, (counts.get(node.status) ?? 0) + 1);
    const sub = usage.get(node);
    if (sub !== undefined) total = addUsage(total ?? ZERO_USAGE, sub);
  }
  const statuses = counts.size === 1 ? STATUS_SYMBOL[first.status] : [...counts].map(([status, n]) => `${n}${STATUS_SYMBOL[status]}`).join(' ');
  let line = `× ${run.length} ${first.name} [${first.kind}] ${statuses}`;
  const duration = runSpan(run);
  if (duration !== undefined) line += ` ${formatDuration(duration)}`;
  if (total !== undefined && totalTokens(total) > 0) {
    line += ` · ${totalTokens(total).toLocaleString('en-US')} tok`;
    if (total.costUsd !== undefined) line += ` $${total.costUsd.toFixed(4)}`;
  }
  return line;
}

/**
 * The wall-clock time the run covered, first start to last end: siblings that ran concurrently
 * overlap, and a sum of their durations would exceed their parent's. Sequential siblings give
 * their sum plus the gaps between them.
 */
function runSpan(run: readonly WorkflowNode[]): number | undefined {
  let start = Infinity;
  let end = -Infinity;
  for (const node of run) {
    if (node.startTime === undefined || node.endTime === undefined) return undefined;
    start = Math.min(start, node.startTime);
    end = Math.max(end, node.endTime);
  }
  return end - start;
}

/** Nodes beneath `node` (not itself), counted without recursion. */
function countBelow(node: WorkflowNode): number {
  let count = -1;
  for (const _ of walkTree(node)) count += 1;
  return count;
}

/** Code points, not UTF-16 units: a symbol such as ✓ or an emoji must not be split in half. */
function cutToWidth(line: string, width: number): string {
  if (line.length <= width) return line;
  const points = [...line];
  return points.length <= width ? line : `${points.slice(0, width - 1).join('')}…`;
}

function describeNode(node: WorkflowNode, usage: TokenUsage | undefined, seen: NodeEvents): string {
  let line = `${STATUS_SYMBOL[node.status]} ${node.name} [${node.kind}]`;
  if (node.duration !== undefined) line += ` ${formatDuration(node.duration)}`;
  if (usage !== undefined && totalTokens(usage) > 0) line += ` · ${formatUsage(usage)}`;
  if (node.status === 'running') line += ' (running)';
  const notes = notesOf(seen, node.replayed === true);
  if (notes !== '') line += ` ${notes}`;
  if (seen.failure !== undefined) line += ` — ${failureText(seen.failure)}`;
  return line;
}

/**
 * Short markers for what a user debugging the node wants to see at a glance. A node a durable run
 * replayed says so, and that its work (and the times shown) are from an earlier process.
 */
function notesOf(seen: NodeEvents, replayed: boolean): string {
  const notes: string[] = [];
  if (seen.model) notes.push(`(${seen.model})`);
  if (replayed) notes.push('(replayed · ran in an earlier process)');
  if (seen.cache && !(replayed && seen.cache === '(replayed)')) notes.push(seen.cache);
  if (seen.attempts > 1) notes.push(`(${seen.attempts} attempts)`);
  if (seen.apiErrors > 0) notes.push(`(${seen.apiErrors} API error${seen.apiErrors > 1 ? 's' : ''} retried or failed)`);
  return notes.join(' ');
}

/** `1,200 in / 340 out tok (+900 cache read) $0.0041` */
function formatUsage(usage: TokenUsage): string {
  let text = `${usage.inputTokens.toLocaleString('en-US')} in / ${usage.outputTokens.toLocaleString('en-US')} out tok`;
  const cache: string[] = [];
  if (usage.cacheCreationInputTokens > 0) cache.push(`${usage.cacheCreationInputTokens.toLocaleString('en-US')} cache write`);
  if (usage.cacheReadInputTokens > 0) cache.push(`${usage.cacheReadInputTokens.toLocaleString('en-US')} cache read`);
  if (cache.length > 0) text += ` (+${cache.join(', ')})`;
  if (usage.costUsd !== undefined) text += ` $${usage.costUsd.toFixed(4)}`;
  return text;
}

function formatDuration(ms: number): string {
  if (ms < 1) return `${ms.toFixed(2)}ms`;
  if (ms < 1000) return `${ms.toFixed(1)}ms`;
  return `${(ms / 1000).toFixed(2)}s`;
}
