import type { WorkflowEvent } from '../types/events.js';
import type { NodeKind, WorkflowStatus } from '../types/status.js';

/** How many nodes of one kind are running, finished well, failed, were cancelled or wait for a signal. */
export interface KindCounts {
  running: number;
  done: number;
  failed: number;
  cancelled: number;
  suspended: number;
}

/** Kinds the display counts, in the order it shows them. */
export const COUNTED_KINDS = ['workflow', 'step', 'task', 'agentPrompt', 'toolCall', 'mcpCall', 'reflection'] as const satisfies readonly NodeKind[];
type CountedKind = (typeof COUNTED_KINDS)[number];

/**
 * What a progress display knows about one run, folded from its events as they arrive. Memory is
 * bounded by what is running at once: a node is held from its start event to its end event only
 * (finished nodes are counters), so a run of 10 000 steps costs what a run of ten does.
 */
export class ProgressState {
  readonly counts: Record<CountedKind, KindCounts> = freshCounts();
  /** Running nodes by id, oldest first (Map keeps insertion order). */
  readonly running = new Map<string, { readonly kind: CountedKind; readonly name: string; readonly workflowId: string }>();
  inputTokens = 0;
  outputTokens = 0;
  costUsd: number | undefined;
  rootName = '';
  rootStatus: WorkflowStatus = 'running';
  /** The signal the run waits for, once a wait started (a durable run's `waitFor`). */
  waitingFor: string | undefined;
  /** Bumped on every change the display shows, so a redraw can be skipped when nothing changed. */
  version = 0;

  /** Folds one event in; returns a line worth printing on its own (a workflow or failure finishing), if any. */
  apply(event: WorkflowEvent): { kind: CountedKind; name: string; status: WorkflowStatus; duration?: number } | undefined {
    switch (event.type) {
      case 'workflowStart':
        return this.start(event.workflowId, event.nodeId, 'workflow', event.name);
      case 'workflowEnd':
        return this.end(event.nodeId, 'workflow', event.name, event.status, event.duration);
      case 'stepStart':
        return this.start(event.workflowId, event.nodeId, 'step', event.name);
      case 'stepEnd':
        return this.end(event.nodeId, 'step', event.name, event.status, event.duration);
      case 'taskStart':
        return this.start(event.workflowId, event.nodeId, 'task', event.name);
      case 'taskEnd':
        return this.end(event.nodeId, 'task', event.name, event.status, event.duration);
      case 'agentPromptStart':
        return this.start(event.workflowId, event.nodeId, 'agentPrompt', event.agentName);
      case 'agentPromptEnd':
        this.inputTokens += event.usage.inputTokens + event.usage.cacheCreationInputTokens + event.usage.cacheReadInputTokens;
        this.outputTokens += event.usage.outputTokens;
        if (event.usage.costUsd !== undefined) this.costUsd = (this.costUsd ?? 0) + event.usage.costUsd;
        return this.end(event.nodeId, 'agentPrompt', event.agentName, event.status, event.duration);
      case 'toolInvocation':
        return this.end(event.nodeId, 'toolCall', event.toolName, event.isError ? 'failed' : 'completed', event.duration);
      case 'mcpEvent':
        return event.phase === 'call' ? this.end(event.nodeId, 'mcpCall', event.toolName ?? event.server, event.isError === true ? 'failed' : 'completed') : undefined;
      case 'waitStarted':
        this.waitingFor = event.name;
        this.version++;
        return undefined;
      case 'reflectionStart':
        return this.start(event.workflowId, event.nodeId, 'reflection', `reflection (${event.level})`);
      case 'reflectionEnd':
        return this.end(event.nodeId, 'reflection', `reflection (${event.level})`, event.status);
      default:
        return undefined;
    }
  }

  private start(workflowId: string, nodeId: string, kind: CountedKind, name: string): undefined {
    if (!this.running.has(nodeId)) {
      this.running.set(nodeId, { kind, name, workflowId });
      this.counts[kind].running++;
      this.version++;
    }
    return undefined;
  }

  private end(nodeId: string, kind: CountedKind, name: string, status: WorkflowStatus, duration?: number) {
    // A node whose start came before the display was attached was never counted as running.
    if (this.running.delete(nodeId)) this.counts[kind].running--;
    const counts = this.counts[kind];
    if (status === 'completed') counts.done++;
    else if (status === 'cancelled') counts.cancelled++;
    else if (status === 'suspended') counts.suspended++;
    else counts.failed++;
    this.version++;
    return { kind, name, status, ...(duration !== undefined ? { duration } : {}) };
  }
}

function freshCounts(): Record<CountedKind, KindCounts> {
  const counts = {} as Record<CountedKind, KindCounts>;
  for (const kind of COUNTED_KINDS) counts[kind] = { running: 0, done: 0, failed: 0, cancelled: 0, suspended: 0 };
  return counts;
}
