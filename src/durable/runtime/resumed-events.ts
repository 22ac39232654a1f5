import type { TreeNode } from '../../core/tree-node.js';
import type { Workflow } from '../../core/workflow.js';
import type { ReplayedWork, WorkflowEvent, WorkflowStartEvent } from '../../types/events.js';

// Events a replay emits again as the code passes the same places (a child's start, a snapshot):
// whether the earlier process stored them is known only at the next stored step, call or wait.
const REPEATED = new Set<WorkflowEvent['type']>([
  'workflowStart',
  'workflowEnd',
  'childAttached',
  'childDetached',
  'treeUpdated',
  'stateSnapshot',
  'taskStart',
  'taskEnd',
  'error',
  'cancelled',
]);

/**
 * Which events of a resumed run's process go to the stored log: only what the log does not hold
 * yet. Observers still get every event (the live tree shows the whole run); this only decides
 * what `recordEvent` buffers for the store.
 *
 * The process replays from the start. Until it first does live work it holds back what it emits:
 * - a replayed step's events (start, `stepReplayed`, end) are dropped: the process that ran the
 *   step stored them with it. Dropped whenever a step replays, even after live work started;
 * - a replayed agent call's events, and a wait's signal that an earlier process took before it
 *   last suspended (`signalsTaken`), are dropped likewise;
 * - each of these is a point the earlier process stored everything before, so whatever was held
 *   until then (a child's start, a wait's signal taken after the last suspension) is dropped too;
 * - the wait where the run last suspended is where the new work begins: what was held before it
 *   is dropped, and from its signal on everything is stored.
 * What is held when live work begins (a step's body runs, a call goes to its model, a wait
 * suspends, the run ends) is new: what the earlier process emitted after its last write and lost
 * when it died. It is stored behind the root's `workflowStart`, which says what was replayed.
 */
export class ResumedEvents {
  private live = false;
  private readonly replayedNodes = new WeakSet<TreeNode>();
  // The step whose start came last while catching up: it replays at once (same tick) or runs.
  private pendingStep: TreeNode | undefined;
  private start: WorkflowStartEvent | undefined;
  private readonly counts = { steps: 0, calls: 0, signals: 0 };

  /**
   * @param cursors how many signals of each name this process's waits took so far (the run's own map)
   * @param taken how many the run's waits had taken when it last suspended
   * @param suspendedOn the signal the run waited for when this process loaded it, if it was suspended
   */
  constructor(
    private readonly root: Workflow,
    private readonly cursors: ReadonlyMap<string, number>,
    private readonly taken: ReadonlyMap<string, number>,
    private readonly suspendedOn: string | undefined,
  ) {}

  /** True until the process first does live work: `events` then holds only what may yet be dropped. */
  get catchingUp(): boolean {
    return !this.live;
  }

  /** Whether `event` goes into `events` (the run's buffer, not written yet); may drop or release what it holds. */
  admit(event: WorkflowEvent, node: TreeNode | undefined, events: unknown[]): boolean {
    if (node !== undefined && this.replayedNodes.has(node)) return false;
    if (event.type === 'stepReplayed') {
      this.stepReplayed(node, events);
      return false;
    }
    if (this.live) return true;
    // After a step's start, its replay comes in the same tick; work of any other kind means its body runs.
    if (this.pendingStep !== undefined && !REPEATED.has(event.type)) {
      this.goLive(events);
      return true;
    }
    switch (event.type) {
      case 'workflowStart':
        if (event.nodeId !== this.root.node.id) return true;
        this.start = event;
        return false;
      case 'stepStart':
        this.pendingStep = node;
        return true;
      case 'agentPromptStart':
        return true;
      case 'agentPromptEnd':
        if (event.replayed !== true) break;
        this.counts.calls += 1;
        this.storedUpTo(events, event.nodeId);
        return false;
      case 'signalReceived':
      case 'signalRejected':
        return this.signal(event.name, events);
      default:
        if (REPEATED.has(event.type)) return true;
    }
    this.goLive(events);
    return true;
  }

  /** Something is about to be written: the process works live now, and what it holds is new. */
  release(events: unknown[]): void {
    if (!this.live) this.goLive(events);
  }

  private stepReplayed(node: TreeNode | undefined, events: unknown[]): void {
    if (node === undefined) return;
    this.replayedNodes.add(node);
    // Another step's start still waiting for its replay: that one runs (this one is inside it or after it).
    if (!this.live && this.pendingStep !== undefined && this.pendingStep !== node) this.goLive(events);
    this.pendingStep = undefined;
    if (!this.live) {
      this.counts.steps += 1;
      this.storedUpTo(events, node.id);
      return;
    }
    // Its start was buffered in the same tick, so it is still there.
    for (let i = events.length - 1; i >= 0; i -= 1) {
      const held = events[i] as WorkflowEvent;
      if (held.nodeId === node.id && held.type === 'stepStart') {
        events.splice(i, 1);
        return;
      }
    }
  }

  /** A wait took or refused a signal; the run's cursor already counts it. */
  private signal(name: string, events: unknown[]): boolean {
    const index = (this.cursors.get(name) ?? 1) - 1;
    const taken = this.taken.get(name) ?? 0;
    if (index < taken) {
      this.counts.signals += 1;
      this.storedUpTo(events);
      return false;
    }
    if (index === taken && name === this.suspendedOn) {
      // The wait the run suspended at: stored up to here, new from here.
      this.storedUpTo(events);
      this.goLive(events);
    }
    return true;
  }

  /**
   * The earlier process stored everything before this point: drops what `events` holds, but for
   * agent calls still under way (their replay shows at their end), other than `callNodeId`'s.
   */
  private storedUpTo(events: unknown[], callNodeId?: string): void {
    let kept = 0;
    for (const held of events as WorkflowEvent[]) {
      if (held.type === 'agentPromptStart' && held.nodeId !== callNodeId) events[kept++] = held;
      else if (held.type === 'signalReceived' || held.type === 'signalRejected') this.counts.signals += 1;
    }
    events.length = kept;
  }

  private goLive(events: unknown[]): void {
    this.live = true;
    this.pendingStep = undefined;
    const start = this.start;
    if (start === undefined) return;
    const resumed: ReplayedWork = { ...this.counts };
    events.unshift({ ...start, resumed });
  }
}
