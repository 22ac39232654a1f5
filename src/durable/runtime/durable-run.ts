import { RunSuspendedError, WorkflowError } from '../../errors/workflow-error.js';
import { replayedToolCalls, storeToolCalls } from '../../agent/stored-tool-calls.js';
import { maskForRun } from '../../core/run-secrets.js';
import type { CallJournal } from '../../agent/call-journal.js';
import type { PromptCall, PromptOutcome } from '../../agent/prompt-call.js';
import type { PausedTurn } from '../../agent/paused-turn.js';
import type { RunJournal, StepIdentity, StepReplay, WaitOptions, WaitSchema } from '../../core/run-journal.js';
import type { TreeNode } from '../../core/tree-node.js';
import type { Workflow } from '../../core/workflow.js';
import type { Lease, LoadedRun, RunStore } from '../store/run-store.js';
import type { CallRecord, SignalRecord, StepRecord } from '../store/stored-records.js';
import { RunValueError } from '../store/run-store-errors.js';
import type { LeaseKeeper } from './lease-keeper.js';
import { RunInterruptedError } from './run-interrupted-error.js';
import { ReservationRecords } from './reservation-records.js';
import type { BudgetAmounts } from '../../budgets/budget-amounts.js';
import type { BudgetLedger } from '../../budgets/budget-ledger.js';
import { exportRun } from '../../debugger/run-export.js';
import type { SerializedError } from '../../util/serialize-error.js';
import { addUsage, ZERO_USAGE } from '../../util/usage.js';
import type { TokenUsage } from '../../types/usage.js';
import type { WorkflowEvent } from '../../types/events.js';
import type { TrajectoryCheckpoint } from '../../types/trajectory.js';
import { ReplayMismatchError, WaitTimeoutError } from './replay-errors.js';
import { RunPaths } from './run-paths.js';
import { callRequestOf } from './call-request.js';
import type { ReplayCheck } from './replay-check.js';
import { callFingerprint, stepFingerprint } from './step-key.js';
import { signalRejected } from './signal-rejections.js';
import { waitSchemaJson } from './signal-schema.js';
import { rebuildError, storeError, type StoredError } from './stored-error.js';
import { graftStored, storedSubtree } from './graft-stored.js';
import { ResumedEvents } from './resumed-events.js';
import { SIGNALS_TAKEN, signalsTaken } from './signals-taken.js';
import { stepStatesOf } from './step-state.js';
import { backdateWorkflows, firstStart, nodeTimes, storedTimes } from './original-times.js';
import { amountsOfSubtree, amountsOfUsage, bookBelow, bookReplayedCall } from '../../budgets/earlier-spending.js';
import type { SerializedNode } from '../../types/serialized.js';

// The stored tree is rewritten whole, so how often follows what a write costs: at most every
// TREE_MAX_MS, never more than 1/TREE_COST_SHARE of the run's time, and at once for the first settle.
const TREE_MAX_MS = 5_000;
const TREE_COST_SHARE = 20;
const EVENTS_PER_BATCH = 1_000;
/** How soon a `streamText` run stores what it emitted, for web readers that read the store. */
const STREAM_EVERY_MS = 50;
const CHECKPOINT_DATA = 'checkpoint:';
/** Where a call that waits for a tool call's approval keeps its place (see `PausedTurn`). */
const PAUSED_DATA = 'paused:';

/** A step error as stored: its own error, and whether the step's WorkflowError wrapped it. */
type StoredStepError = SerializedError & { thrown?: StoredError; wrapped?: boolean };

/**
 * One durable run in this process: serves what the store holds for the run (settled steps,
 * completed agent calls, signals) and stores each new outcome before the code goes on.
 */
export class DurableRun implements RunJournal, CallJournal {
  private readonly paths = new RunPaths();
  private readonly steps = new Map<string, StepRecord>();
  private readonly calls = new Map<string, CallRecord>();
  private readonly signals = new Map<string, SignalRecord[]>();
  // Per signal name: how many of its signals earlier waits took or refused.
  private readonly signalCursor = new Map<string, number>();
  private readonly fingerprints = new WeakMap<TreeNode, string>();
  private readonly callKeys = new WeakMap<TreeNode, string>();
  // Steps marked `recorded`: their records say so, and a replay serves them.
  private readonly recordedSteps = new WeakSet<TreeNode>();
  // What the run waited for when it was stored, for a wait's since/timeout across processes.
  private readonly waitingSince: LoadedRun['run']['waitingFor'];
  // When an earlier process first started the run: a resumed root starts then.
  private readonly firstStarted: number | undefined;
  private events: unknown[] = [];
  // Event batches written while steps are replayed (see recordEvent), in order.
  private writing: Promise<void> = Promise.resolve();
  private batchQueued = false;
  /** Pending write of a text-streaming run's events (`streamText`): readers of the store see text within STREAM_EVERY_MS. */
  private streamTimer: NodeJS.Timeout | undefined;
  private writeError: unknown;
  // The latest trajectory checkpoint of each call still running, by the call's key: written
  // promptly, restored on resume to the same call (its re-run) and to no other.
  private readonly checkpoints = new Map<string, TrajectoryCheckpoint>();
  private readonly restored = new Map<string, TrajectoryCheckpoint>();
  /** Calls an earlier process stopped at an approval, by call key, until their re-run takes them. */
  private readonly paused = new Map<string, StoredPausedTurn>();
  private usageTotal: TokenUsage = { ...ZERO_USAGE };
  // A resumed run stores only events its log does not hold yet (see ResumedEvents).
  private readonly resumed: ResumedEvents | undefined;
  // A wait suspends the run: with its events, store how many signals the waits took.
  private takenDue = false;
  private keeper: LeaseKeeper | undefined;
  private readonly reservations: ReservationRecords;
  // Per call key: what its earlier processes' requests held (booked when the call runs again).
  private readonly spentBefore = new Map<string, BudgetAmounts>();
  private stopped: RunInterruptedError | undefined;
  /** Set when a wait suspended the run. */
  suspended = false;

  // -Infinity: the first settled step stores the tree, so a run killed in its first seconds has one.
  // Wall time (performance.now()), whatever clock the run uses: the share is of real time spent.
  private treeWrittenAt = Number.NEGATIVE_INFINITY;
  private treeEveryMs = 0;

  constructor(
    readonly store: RunStore,
    readonly runId: string,
    private readonly root: Workflow,
    loaded: LoadedRun | undefined,
    /** The lease this process holds: every write passes it, so the store refuses them once it was taken over. */
    private readonly fence?: Lease,
    /** A replay's check: steps run again, calls come from the recording only. */
    private readonly replay?: ReplayCheck,
  ) {
    for (const step of loaded?.steps ?? []) this.steps.set(step.key, step);
    // The run's usage counts every call it paid for, in earlier processes too.
    for (const call of loaded?.calls ?? []) {
      this.calls.set(call.key, call);
      this.usageTotal = addUsage(this.usageTotal, call.usage);
    }
    for (const signal of loaded?.signals ?? []) {
      const list = this.signals.get(signal.name) ?? [];
      list.push(signal);
      this.signals.set(signal.name, list);
    }
    this.waitingSince = loaded?.run.waitingFor;
    this.reservations = new ReservationRecords(loaded?.data);
    // A replay runs everything again now: its root starts now, not when the recording did.
    this.firstStarted = loaded === undefined || replay !== undefined ? undefined : firstStart(loaded);
    for (const [name, value] of Object.entries(loaded?.data ?? {})) {
      // Only calls that did not complete run again, so only theirs can be handed over.
      const key = name.slice(CHECKPOINT_DATA.length);
      if (name.startsWith(CHECKPOINT_DATA) && !this.calls.has(key)) this.restored.set(key, value as TrajectoryCheckpoint);
      const pausedKey = name.slice(PAUSED_DATA.length);
      if (name.startsWith(PAUSED_DATA) && !this.calls.has(pausedKey)) this.paused.set(pausedKey, value as StoredPausedTurn);
    }
    this.resumed = loaded === undefined ? undefined : new ResumedEvents(root, this.signalCursor, signalsTaken(loaded.data), loaded.run.waitingFor?.name);
  }

  private now(): number {
    return this.root.clock.now();
  }

  /** The key of the step `node` is or is inside of, in `workflow`; undefined outside a step. */
  stepKeyOf(workflow: Workflow, node: TreeNode | undefined): string | undefined {
    for (let at: TreeNode | null | undefined = node; at !== undefined && at !== null && at !== workflow.treeNode; at = at.parent) {
      if (at.kind === 'step') return this.paths.nodeKey(workflow, at);
    }
    return undefined;
  }

  /** The keeper of the run's lease, asked before each step's body runs. */
  keepLeaseWith(keeper: LeaseKeeper): void {
    this.keeper = keeper;
  }

  beforeStepBody(): Promise<void> | undefined {
    if (this.stopped !== undefined) return Promise.reject(this.stopped);
    return this.keeper?.beforeWork();
  }

  /**
   * Why this process must stop working on the run without storing an outcome: its lease was lost,
   * or a write failed for the store's own reasons (a value the store refuses is the code's fault,
   * and fails the step as usual). Undefined while neither happened.
   */
  get interruption(): RunInterruptedError | undefined {
    return this.stopped ?? this.keeper?.lostError;
  }

  /** Stops the run in this process: no step body starts after this, and nothing final is stored. */
  interrupt(error: RunInterruptedError): void {
    if (this.stopped !== undefined) return;
    this.stopped = error;
    this.keeper?.stop();
    this.root.cancel(error.message);
  }

  /** Once the run stopped in this process, it stores nothing more: what it did is the next holder's to redo. */
  private throwIfStopped(): void {
    const stopped = this.interruption;
    if (stopped !== undefined) throw stopped;
  }

  /** Notes a failed write: anything but a refused value means the store is in trouble or the lease is gone. */
  private writeFailed(error: unknown): void {
    if (error instanceof RunValueError || this.stopped !== undefined) return;
    this.interrupt(new RunInterruptedError(this.runId, `a write to its store failed (${error instanceof Error ? error.message : String(error)})`, { cause: error }));
  }

  /** `promise`, a write to the store, noting its failure (see `writeFailed`): the run then stops resumable. */
  stored<T>(promise: Promise<T>): Promise<T> {
    return promise.catch((error: unknown) => {
      this.writeFailed(error);
      throw error;
    });
  }

  get usage(): TokenUsage {
    return this.usageTotal;
  }

  /**
   * Buffered until the next stored outcome: one write per step, not one per event, and a batch of
   * its own every 1,000 events between outcomes. A resumed run buffers only events its log does
   * not hold yet: a replayed step's are stored once, by the process that ran it (ResumedEvents).
   */
  recordEvent(event: WorkflowEvent, node?: TreeNode): void {
    if (this.resumed !== undefined && !this.resumed.admit(event, node, this.events)) return;
    this.events.push(event);
    if (event.type === 'waitStarted') this.takenDue = true;
    if (event.type === 'trajectoryCheckpoint') {
      const key = node === undefined ? undefined : this.callKeyOf(node);
      if (key !== undefined) {
        this.checkpoints.set(key, event.checkpoint);
        // Kept at once: a kill mid-call must still leave this call its checkpoint.
        this.writing = this.writing.then(() => this.writeCheckpoints());
      }
    }
    if (this.root.config.streamText === true && this.streamTimer === undefined && this.resumed?.catchingUp !== true) this.streamSoon();
    // While a resume catches up, what it holds may yet be dropped: nothing is written.
    if (this.events.length >= EVENTS_PER_BATCH && !this.batchQueued && this.resumed?.catchingUp !== true) {
      this.batchQueued = true;
      this.writing = this.writing.then(() => {
        this.batchQueued = false;
        return this.writeEvents();
      });
    }
  }

  /** Writes the buffered events in a moment, through the same chain as every write (so in order). */
  private streamSoon(): void {
    this.streamTimer = setTimeout(() => {
      this.streamTimer = undefined;
      if (this.stopped !== undefined || this.events.length === 0 || this.batchQueued) return;
      this.batchQueued = true;
      this.writing = this.writing.then(() => {
        this.batchQueued = false;
        return this.writeEvents();
      });
    }, STREAM_EVERY_MS);
    // Never what keeps a process alive: the run's own work does that, and its end flushes.
    this.streamTimer.unref();
  }

  /** Whether any call of the run left a checkpoint before the interruption (the handoff's cheap check). */
  get hasRestoredCheckpoints(): boolean {
    return this.restored.size > 0;
  }

  /**
   * The checkpoint the call whose node is `node` saved before the interruption (the same call key:
   * its re-run), until it is handed over. A call that saved none gets none, whatever its agent.
   */
  restoredCheckpoint(node: TreeNode | undefined): TrajectoryCheckpoint | undefined {
    const key = node === undefined ? undefined : this.callKeys.get(node);
    return key === undefined ? undefined : this.restored.get(key);
  }

  /** True once per restored checkpoint: the first live request of its call takes it. */
  handOver(node: TreeNode | undefined, checkpoint: TrajectoryCheckpoint): boolean {
    const key = node === undefined ? undefined : this.callKeys.get(node);
    if (key === undefined || this.restored.get(key) !== checkpoint) return false;
    this.restored.delete(key);
    return true;
  }

  /** The call key of the agent call `node` is, or is inside of. */
  private callKeyOf(node: TreeNode): string | undefined {
    for (let at: TreeNode | null = node; at !== null; at = at.parent) {
      const key = this.callKeys.get(at);
      if (key !== undefined) return key;
    }
    return undefined;
  }

  private async writeCheckpoints(): Promise<void> {
    if (this.writeError !== undefined || this.interruption !== undefined) return;
    try {
      for (const [key, checkpoint] of this.checkpoints) await this.store.putData(this.runId, `${CHECKPOINT_DATA}${key}`, checkpoint, this.fence);
      this.checkpoints.clear();
    } catch (error) {
      this.writeFailed(error);
      this.writeError = error;
    }
  }

  /** The run's tree as the debugger loads it: at the end, on suspend, and every few seconds meanwhile. */
  async storeTree(): Promise<void> {
    this.throwIfStopped();
    // A replay's store is dropped when it ends: exporting the whole tree again and again for it
    // was a good part of a long replay's time.
    if (this.replay !== undefined) return;
    const started = performance.now();
    await this.stored(this.store.putTree(this.runId, exportRun(this.root.node, this.now()), this.fence));
    this.treeWrittenAt = performance.now();
    this.treeEveryMs = Math.min(TREE_MAX_MS, (this.treeWrittenAt - started) * TREE_COST_SHARE);
  }

  private async writeEvents(): Promise<void> {
    this.resumed?.release(this.events);
    if (this.events.length === 0 || this.writeError !== undefined || this.interruption !== undefined) return;
    const batch = this.events;
    this.events = [];
    // Taken with the batch: counts only signals whose events are in it or already stored.
    const taken = this.takenDue && this.signalCursor.size > 0 ? Object.fromEntries(this.signalCursor) : undefined;
    this.takenDue = false;
    try {
      await this.store.appendEvents(this.runId, batch, this.fence);
      // After the events: a count the store holds never runs ahead of the log.
      if (taken !== undefined) await this.store.putData(this.runId, SIGNALS_TAKEN, taken, this.fence);
    } catch (error) {
      this.writeFailed(error);
      // Surfaces at the next flush, which a step's settling awaits.
      this.writeError = error;
    }
  }

  async flush(): Promise<void> {
    this.throwIfStopped();
    await this.storeTreeIfDue();
    // Through the same chain as the replay's batches: one append at a time, in order.
    this.writing = this.writing.then(() => this.writeEvents());
    await this.writing;
    this.throwWriteError();
  }

  /** A killed run still shows its tree as of a few seconds before (`groundswell runs show`). */
  private async storeTreeIfDue(): Promise<void> {
    if (performance.now() - this.treeWrittenAt >= this.treeEveryMs) await this.storeTree();
  }

  /** An earlier write's error, which the replay's batches and checkpoints leave for the next flush. */
  private throwWriteError(): void {
    if (this.writeError === undefined) return;
    const error = this.writeError;
    this.writeError = undefined;
    throw error;
  }

  /**
   * Stores a settled step with the events buffered before it: one `settleStep` where the store
   * has it (one round trip on PostgreSQL), else `appendEvents` and `putStep`. The settle goes
   * through the same chain as the events, so batches stay in order and an earlier write's error
   * surfaces here, with the step not stored, as a flush would.
   */
  private async storeStep(record: StepRecord): Promise<void> {
    this.throwIfStopped();
    const store = this.store;
    if (store.settleStep === undefined) {
      await this.flush();
      await this.stored(store.putStep(this.runId, record, this.fence));
      return;
    }
    const settle = store.settleStep.bind(store);
    await this.storeTreeIfDue();
    let failure: { error: unknown } | undefined;
    this.writing = this.writing.then(async () => {
      if (this.writeError !== undefined) return;
      const batch = this.events;
      this.events = [];
      try {
        await settle(this.runId, record, batch, this.fence);
      } catch (error) {
        this.writeFailed(error);
        failure = { error };
        // A refused value wrote nothing: the events go on alone, as they would have before
        // the step (a refused event fails again and the batch is dropped, like any failed append).
        if (error instanceof RunValueError && batch.length > 0) await store.appendEvents(this.runId, batch, this.fence).catch(() => undefined);
      }
    });
    await this.writing;
    this.throwWriteError();
    if (failure !== undefined) throw failure.error;
  }

  workflowStarted(workflow: Workflow): void {
    this.paths.started(workflow);
  }

  startedEarlier(workflow: Workflow): number | undefined {
    return workflow === this.root ? this.firstStarted : undefined;
  }

  replayStep(workflow: Workflow, node: TreeNode, identity: StepIdentity, recorded = false): StepReplay | undefined {
    const key = this.paths.step(workflow, node);
    if (recorded) this.recordedSteps.add(node);
    const fingerprint = stepFingerprint(identity);
    this.fingerprints.set(node, fingerprint);
    this.replay?.stepStarting(key, node);
    const stored = this.steps.get(key);
    const states = stepStatesOf(this, this.steps);
    if (stored === undefined) {
      states.starting(workflow, node);
      return undefined;
    }
    if (stored.fingerprint !== undefined && stored.fingerprint !== fingerprint) {
      throw new ReplayMismatchError(
        key,
        `Step "${node.name}" (${key}) of run "${this.runId}" changed since it was stored: its code or arguments differ, so its ` +
          'stored result is not replayed. Finish the run with the code that started it, or start a new run.',
      );
    }
    graftStored(node, stored.subtree);
    // What the step's work cost when it ran still counts against the budgets above it.
    if (Array.isArray(stored.subtree)) bookBelow(node, amountsOfSubtree(stored.subtree));
    // The fields as the step left them, before its value is returned: the code after it reads them.
    states.restore(workflow, stored);
    // The step's node shows when it ran, not the moment of this replay.
    const ran = storedTimes(stored);
    if (ran !== undefined) backdateWorkflows(node.parent, ran.startedAt);
    if (stored.status === 'completed') return { status: 'completed', value: stored.value, ran };
    return { status: 'failed', error: replayedFailure(workflow, node, stored.error as StoredStepError | undefined), ran };
  }

  async stepSettled(workflow: Workflow, node: TreeNode, outcome: StepReplay): Promise<void> {
    const key = this.paths.nodeKey(workflow, node);
    const fingerprint = this.fingerprints.get(node);
    const record: StepRecord = {
      key,
      status: outcome.status,
      ...(outcome.status === 'completed'
        ? outcome.value === undefined ? {} : { value: outcome.value }
        : { error: stepError(workflow, node, outcome.error) }),
      ...stepStatesOf(this, this.steps).settled(workflow, node, outcome.status === 'failed' ? outcome.error : undefined),
      ...(fingerprint !== undefined ? { fingerprint } : {}),
      ...(this.recordedSteps.has(node) ? { recorded: true as const } : {}),
      // A replay serves no step, so it keeps no copy of their subtrees.
      ...(this.replay === undefined ? subtreeOf(node) : {}),
      ...nodeTimes(node),
      at: this.now(),
    };
    await this.storeStep(record);
    this.steps.set(key, record);
  }

  replayCall<T>(call: PromptCall<T>): PromptOutcome<T> | undefined {
    const workflow = call.tree.workflow as Workflow;
    const key = this.paths.call(workflow, call.tree.node?.parent, call.agentName);
    if (call.tree.node !== undefined) this.callKeys.set(call.tree.node, key);
    const stored = this.calls.get(key);
    if (stored === undefined) {
      if (this.replay !== undefined) this.replay.callMissing(key, call);
      // Requests of earlier processes that never completed were sent all the same: they count.
      const earlier = this.reservations.earlier(key);
      if (earlier !== undefined) {
        for (const ledger of call.budgets) ledger.book(earlier);
        this.spentBefore.set(key, earlier);
      }
      return undefined;
    }
    const fingerprint = callFingerprint(call);
    const parsed = call.prompt.responseFormat.safeParse(stored.answer);
    if ((stored.fingerprint !== undefined && stored.fingerprint !== fingerprint) || !parsed.success) {
      if (this.replay !== undefined) this.replay.callChanged(key, call, stored);
      throw new ReplayMismatchError(
        key,
        `Agent call ${key} of run "${this.runId}" changed since it was stored (its prompt, model or answer schema differ), ` +
          'so its stored answer is not replayed.',
      );
    }
    const toolCalls = Array.isArray(stored.toolCalls) ? stored.toolCalls.length : 0;
    // A replay runs the current code's budgets: a call they cannot pay for is refused, as it
    // would be live (a resume books it regardless: that money was spent).
    if (this.replay !== undefined) refuseUnaffordable(call.budgets, amountsOfUsage(stored.usage, stored.requests ?? 1, toolCalls), `Agent call ${key} (served from the recording)`);
    this.replay?.callServed(key, call, stored);
    // What the call cost when it ran still counts against the budgets above it.
    bookReplayedCall(call.budgets, stored.usage, stored.requests, toolCalls);
    if (stored.spentBefore !== undefined) for (const ledger of call.budgets) ledger.book(stored.spentBefore);
    // A replay shows its own clock: the recorded times (maybe days old) would stretch every
    // workflow and step around the served call back to when the recording ran.
    const ran = this.replay === undefined ? storedTimes(stored) : undefined;
    if (ran !== undefined) backdateWorkflows(call.tree.node?.parent, ran.startedAt);
    return {
      value: parsed.data,
      answerData: stored.answer,
      usage: stored.usage,
      turns: 0,
      stopReason: null,
      model: stored.model,
      cached: false,
      replayed: true,
      ran,
      toolCalls: replayedToolCalls(stored.toolCalls),
    };
  }

  async callCompleted<T>(call: PromptCall<T>, outcome: PromptOutcome<T>): Promise<void> {
    const node = call.tree.node;
    const workflow = call.tree.workflow as Workflow;
    const key = (node !== undefined ? this.callKeys.get(node) : undefined) ?? this.paths.call(workflow, node?.parent, call.agentName);
    const usage = outcome.cached ? outcome.usage : call.meter.turns > 0 ? call.meter.usage : outcome.usage;
    this.usageTotal = addUsage(this.usageTotal, usage);
    await this.flush();
    const startedAt = node?.startTime;
    const stored = this.store.putCall(this.runId, {
      key,
      answer: outcome.answerData,
      usage,
      model: outcome.model,
      fingerprint: callFingerprint(call),
      request: callRequestOf(call),
      ...(outcome.cached ? {} : { requests: call.meter.turns }),
      ...(this.spentBefore.has(key) ? { spentBefore: this.spentBefore.get(key) } : {}),
      // Tool outputs are what the tools printed: masked like the tree's copy (an env value a tool echoed).
      toolCalls: storeToolCalls(outcome.toolCalls, call.secrets),
      // Completed now: the call's node ends once it is stored.
      ...(startedAt !== undefined ? { startedAt, endedAt: this.now() } : {}),
      at: this.now(),
    }, this.fence);
    await this.stored(stored);
  }

  /** Stored before the call waits: a resume goes on from this turn, with nothing sent or run again. */
  async pauseTurn<T>(call: PromptCall<T>, paused: PausedTurn): Promise<void> {
    this.throwIfStopped();
    const key = call.tree.node === undefined ? undefined : this.callKeys.get(call.tree.node);
    if (key === undefined) return;
    // What outlives the call is masked, as its stored record would be.
    const stored: StoredPausedTurn = { ...call.secrets.value(paused), fingerprint: callFingerprint(call) };
    await this.stored(this.store.putData(this.runId, `${PAUSED_DATA}${key}`, stored, this.fence));
  }

  /** The turn an earlier process of this call stopped at, when the call is still the same. */
  pausedTurn<T>(call: PromptCall<T>): PausedTurn | undefined {
    const key = call.tree.node === undefined ? undefined : this.callKeys.get(call.tree.node);
    const stored = key === undefined ? undefined : this.paused.get(key);
    if (key === undefined || stored === undefined) return undefined;
    this.paused.delete(key);
    return stored.fingerprint === callFingerprint(call) ? stored : undefined;
  }

  /** Keeps what a request of `call` holds, before it is sent (see `ReservationRecords`). */
  async requestReserved<T>(call: PromptCall<T>, held: BudgetAmounts): Promise<void> {
    this.throwIfStopped();
    const key = call.tree.node === undefined ? undefined : this.callKeys.get(call.tree.node);
    if (key === undefined) return;
    await this.stored(this.store.putData(this.runId, this.reservations.next(key), held, this.fence));
  }

  async waitFor<T>(workflow: Workflow, node: TreeNode, name: string, schema: WaitSchema<T>, options: WaitOptions): Promise<T> {
    this.paths.wait(name);
    // The next signal of this name that the wait's own schema takes; one it refuses is rejected
    // (reported, skipped) and the run keeps waiting: a bad signal never fails a run.
    const values = this.signals.get(name) ?? [];
    for (let index = this.signalCursor.get(name) ?? 0; index < values.length; index += 1) {
      this.signalCursor.set(name, index + 1);
      const signal = values[index] as SignalRecord;
      const problems = refusal(schema, signal.value);
      if (problems === undefined) {
        workflow.emit(node, { type: 'signalReceived', name });
        return (schema.safeParse(signal.value) as { data: T }).data;
      }
      workflow.emit(node, { type: 'signalRejected', name, reason: problems });
      signalRejected(this.runId, signal, problems);
    }
    const earlier = this.waitingSince?.name === name ? this.waitingSince : undefined;
    const since = earlier?.since ?? this.now();
    const timeoutAt = earlier !== undefined ? earlier.timeoutAt : options.timeout !== undefined ? since + options.timeout : undefined;
    if (timeoutAt !== undefined && this.now() >= timeoutAt) throw new WaitTimeoutError(name, timeoutAt);
    workflow.emit(node, {
      type: 'waitStarted',
      name,
      ...(timeoutAt !== undefined ? { timeoutAt } : {}),
      ...(options.approval !== undefined ? { approval: options.approval } : {}),
    });
    const schemaJson = await waitSchemaJson(schema);
    await this.flush();
    await this.storeTree();
    await this.stored(this.store.updateRun(this.runId, {
      status: 'suspended',
      // What the run has spent so far: `runs list` shows it while the run waits.
      usage: this.usage,
      waitingFor: { name, since, ...(timeoutAt !== undefined ? { timeoutAt } : {}), ...(schemaJson !== undefined ? { schema: schemaJson } : {}) },
    }, this.fence));
    this.suspended = true;
    throw new RunSuspendedError(`Run "${this.runId}" is suspended: it waits for signal "${name}".`, {
      ...workflow.errorDetails(node, undefined),
      runId: this.runId,
      waitingFor: name,
    });
  }
}

function subtreeOf(node: TreeNode): { subtree?: SerializedNode[] } {
  const subtree = storedSubtree(node);
  return subtree === undefined ? {} : { subtree };
}

/** Why `schema` refuses `value` (its first problems), or undefined when it takes it. A schema that throws refuses. */
function refusal(schema: WaitSchema<unknown>, value: unknown): string | undefined {
  try {
    const parsed = schema.safeParse(value);
    if (parsed.success) return undefined;
    const issues = (parsed.error as { issues?: Array<{ path?: unknown[]; message?: string }> } | undefined)?.issues;
    if (!Array.isArray(issues) || issues.length === 0) return 'the value does not fit the schema';
    return issues
      .slice(0, 3)
      .map((issue) => `${Array.isArray(issue.path) && issue.path.length > 0 ? issue.path.join('.') : 'value'}: ${issue.message ?? 'invalid'}`)
      .join('; ');
  } catch (error) {
    return `the schema threw: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/**
 * What a failed step stores: the error as the step raised it, and the user's own error it wraps,
 * masked with the run's secrets (the journal outlives the process).
 */
function stepError(workflow: Workflow, node: TreeNode, error: Error): StoredStepError {
  const wrapped = error instanceof WorkflowError && error.nodeId === node.id && error.cause !== undefined;
  const thrown = storeError(wrapped ? error.cause : error);
  return maskForRun(workflow, { name: thrown.name, message: (wrapped ? error : thrown).message, thrown, wrapped });
}

/**
 * The stored failure as the step raises it again: the user's error rebuilt (name, message, code,
 * own fields, cause chain) and wrapped the way the live step wrapped it, so a `catch` that branches
 * on them takes the same branch after a resume.
 */
function replayedFailure(workflow: Workflow, node: TreeNode, stored: StoredStepError | undefined): Error {
  // Records from before errors were stored whole hold only a name and message.
  const thrown = rebuildError(stored?.thrown ?? (stored?.cause as StoredError | undefined) ?? stored);
  if (stored?.wrapped === false) {
    const error = new WorkflowError(stored.message, workflow.errorDetails(node, thrown.cause));
    Object.defineProperty(error, 'name', { value: thrown.name, writable: true, configurable: true });
    return error;
  }
  return thrown;
}

/**
 * Throws the budget refusal for work costing `used` that a budget in `ledgers` cannot take on top
 * of what is spent. A budget that suspends is left alone: the recorded run's raise signal decides.
 */
function refuseUnaffordable(ledgers: readonly BudgetLedger[], used: BudgetAmounts, what: string): void {
  for (const ledger of ledgers) {
    if (ledger.suspends) continue;
    const over = ledger.beyond(used);
    if (over !== undefined) throw ledger.refuse(over, used, what);
  }
}

interface StoredPausedTurn extends PausedTurn {
  /** The call's fingerprint when it paused: a changed call starts over. */
  readonly fingerprint: string;
}
