import { RunSuspendedError } from '../errors/workflow-error.js';
import type { CallJournal } from '../agent/call-journal.js';
import type { PromptCall, PromptOutcome } from '../agent/prompt-call.js';
import type { ToolCallRecord } from '../agent/tool-call-record.js';
import type { RunJournal, StepIdentity, StepReplay, WaitOptions, WaitSchema } from '../core/run-journal.js';
import type { TreeNode } from '../core/tree-node.js';
import type { Workflow } from '../core/workflow.js';
import type { LoadedRun, RunStore } from '../durable/run-store.js';
import type { CallRecord, StepRecord } from '../durable/stored-records.js';
import { exportRun } from '../debugger/run-export.js';
import { serializeError } from '../util/serialize-error.js';

const TREE_EVERY_MS = 5_000;
const CHECKPOINT_DATA = 'checkpoint:';
import { addUsage, ZERO_USAGE } from '../util/usage.js';
import type { TokenUsage } from '../types/usage.js';
import type { WorkflowEvent } from '../types/events.js';
import type { TrajectoryCheckpoint } from '../types/trajectory.js';
import { ReplayedStepError, ReplayMismatchError, WaitTimeoutError } from './replay-errors.js';
import { RunPaths } from './run-paths.js';
import { callFingerprint, stepFingerprint } from './step-key.js';
import { signalSchemaName, storeSignalSchema } from './signal-schema.js';

/**
 * One durable run in this process: serves what the store holds for the run (settled steps,
 * completed agent calls, signals) and stores each new outcome before the code goes on.
 */
export class DurableRun implements RunJournal, CallJournal {
  private readonly paths = new RunPaths();
  private readonly steps = new Map<string, StepRecord>();
  private readonly calls = new Map<string, CallRecord>();
  private readonly signals = new Map<string, unknown[]>();
  private readonly fingerprints = new WeakMap<TreeNode, string>();
  private readonly callKeys = new WeakMap<TreeNode, string>();
  // What the run waited for when it was stored, for a wait's since/timeout across processes.
  private readonly waitingSince: LoadedRun['run']['waitingFor'];
  private events: unknown[] = [];
  // The latest trajectory checkpoint per agent: written with the next batch, restored on resume.
  private readonly checkpoints = new Map<string, TrajectoryCheckpoint>();
  private readonly restored = new Map<string, TrajectoryCheckpoint>();
  private usageTotal: TokenUsage = { ...ZERO_USAGE };
  /** Set when a wait suspended the run. */
  suspended = false;

  private treeStoredAt: number;

  constructor(
    readonly store: RunStore,
    readonly runId: string,
    private readonly root: Workflow,
    loaded: LoadedRun | undefined,
  ) {
    this.treeStoredAt = this.now();
    for (const step of loaded?.steps ?? []) this.steps.set(step.key, step);
    // The run's usage counts every call it paid for, in earlier processes too.
    for (const call of loaded?.calls ?? []) {
      this.calls.set(call.key, call);
      this.usageTotal = addUsage(this.usageTotal, call.usage);
    }
    for (const signal of loaded?.signals ?? []) {
      const list = this.signals.get(signal.name) ?? [];
      list.push(signal.value);
      this.signals.set(signal.name, list);
    }
    this.waitingSince = loaded?.run.waitingFor;
    for (const [name, value] of Object.entries(loaded?.data ?? {})) {
      if (name.startsWith(CHECKPOINT_DATA)) this.restored.set(name.slice(CHECKPOINT_DATA.length), value as TrajectoryCheckpoint);
    }
  }

  private now(): number {
    return this.root.clock.now();
  }

  get usage(): TokenUsage {
    return this.usageTotal;
  }

  /** Buffered until the next stored outcome: one write per step, not one per event. */
  recordEvent(event: WorkflowEvent): void {
    this.events.push(event);
    if (event.type === 'trajectoryCheckpoint') this.checkpoints.set(event.agentName, event.checkpoint);
  }

  /** The latest checkpoint of `agentName` from before the interruption, until it is handed over. */
  restoredCheckpoint(agentName: string): TrajectoryCheckpoint | undefined {
    return this.restored.get(agentName);
  }

  /** True once per restored checkpoint: the first live request of that agent takes it. */
  handOver(agentName: string, checkpoint: TrajectoryCheckpoint): boolean {
    if (this.restored.get(agentName) !== checkpoint) return false;
    this.restored.delete(agentName);
    return true;
  }

  /** The run's tree as the debugger loads it: at the end, on suspend, and every few seconds meanwhile. */
  async storeTree(): Promise<void> {
    this.treeStoredAt = this.now();
    await this.store.putTree(this.runId, exportRun(this.root.node, this.treeStoredAt));
  }

  async flush(): Promise<void> {
    for (const [agentName, checkpoint] of this.checkpoints) await this.store.putData(this.runId, `${CHECKPOINT_DATA}${agentName}`, checkpoint);
    this.checkpoints.clear();
    // A killed run still shows its tree as of a few seconds before (`groundswell runs show`).
    if (this.now() - this.treeStoredAt >= TREE_EVERY_MS) await this.storeTree();
    if (this.events.length === 0) return;
    const batch = this.events;
    this.events = [];
    await this.store.appendEvents(this.runId, batch);
  }

  workflowStarted(workflow: Workflow): void {
    this.paths.started(workflow);
  }

  replayStep(workflow: Workflow, node: TreeNode, identity: StepIdentity): StepReplay | undefined {
    const key = this.paths.step(workflow, node);
    const fingerprint = stepFingerprint(identity);
    this.fingerprints.set(node, fingerprint);
    const stored = this.steps.get(key);
    if (stored === undefined) return undefined;
    if (stored.fingerprint !== undefined && stored.fingerprint !== fingerprint) {
      throw new ReplayMismatchError(
        key,
        `Step "${node.name}" (${key}) of run "${this.runId}" changed since it was stored: its code or arguments differ, so its ` +
          'stored result is not replayed. Finish the run with the code that started it, or start a new run.',
      );
    }
    if (stored.status === 'completed') return { status: 'completed', value: stored.value };
    const error = stored.error;
    return { status: 'failed', error: new ReplayedStepError(error?.message ?? 'failed', error?.name ?? 'Error') };
  }

  async stepSettled(workflow: Workflow, node: TreeNode, outcome: StepReplay): Promise<void> {
    const key = this.paths.nodeKey(workflow, node);
    const fingerprint = this.fingerprints.get(node);
    const record: StepRecord = {
      key,
      status: outcome.status,
      ...(outcome.status === 'completed'
        ? outcome.value === undefined ? {} : { value: outcome.value }
        : { error: serializeError(outcome.error) }),
      ...(fingerprint !== undefined ? { fingerprint } : {}),
      at: this.now(),
    };
    await this.flush();
    await this.store.putStep(this.runId, record);
    this.steps.set(key, record);
  }

  replayCall<T>(call: PromptCall<T>): PromptOutcome<T> | undefined {
    const workflow = call.tree.workflow as Workflow;
    const key = this.paths.call(workflow, call.tree.node?.parent, call.agentName);
    if (call.tree.node !== undefined) this.callKeys.set(call.tree.node, key);
    const stored = this.calls.get(key);
    if (stored === undefined) return undefined;
    const fingerprint = callFingerprint(call.plan.model, call.plan.system, call.plan.userContent);
    const parsed = call.prompt.responseFormat.safeParse(stored.answer);
    if ((stored.fingerprint !== undefined && stored.fingerprint !== fingerprint) || !parsed.success) {
      throw new ReplayMismatchError(
        key,
        `Agent call ${key} of run "${this.runId}" changed since it was stored (its prompt, model or answer schema differ), ` +
          'so its stored answer is not replayed.',
      );
    }
    return {
      value: parsed.data,
      answerData: stored.answer,
      usage: stored.usage,
      turns: 0,
      stopReason: null,
      model: stored.model,
      cached: false,
      replayed: true,
      toolCalls: replayedTools(stored.toolCalls),
    };
  }

  async callCompleted<T>(call: PromptCall<T>, outcome: PromptOutcome<T>): Promise<void> {
    const node = call.tree.node;
    const workflow = call.tree.workflow as Workflow;
    const key = (node !== undefined ? this.callKeys.get(node) : undefined) ?? this.paths.call(workflow, node?.parent, call.agentName);
    const usage = outcome.cached ? outcome.usage : call.meter.turns > 0 ? call.meter.usage : outcome.usage;
    this.usageTotal = addUsage(this.usageTotal, usage);
    await this.flush();
    await this.store.putCall(this.runId, {
      key,
      answer: outcome.answerData,
      usage,
      model: outcome.model,
      fingerprint: callFingerprint(call.plan.model, call.plan.system, call.plan.userContent),
      toolCalls: outcome.toolCalls.map((tool) => ({ name: tool.name, kind: tool.kind, isError: tool.isError, output: tool.output.slice(0, 2_000) })),
      at: this.now(),
    });
  }

  async waitFor<T>(workflow: Workflow, node: TreeNode, name: string, schema: WaitSchema<T>, options: WaitOptions): Promise<T> {
    const occurrence = this.paths.wait(name);
    const values = this.signals.get(name) ?? [];
    if (occurrence < values.length) {
      const parsed = schema.safeParse(values[occurrence]);
      if (!parsed.success) {
        throw new ReplayMismatchError(`wait:${name}#${occurrence}`, `Signal "${name}" of run "${this.runId}" does not fit the schema of waitFor("${name}").`);
      }
      workflow.emit(node, { type: 'signalReceived', name });
      return parsed.data;
    }
    const earlier = this.waitingSince?.name === name ? this.waitingSince : undefined;
    const since = earlier?.since ?? this.now();
    const timeoutAt = earlier !== undefined ? earlier.timeoutAt : options.timeout !== undefined ? since + options.timeout : undefined;
    if (timeoutAt !== undefined && this.now() >= timeoutAt) throw new WaitTimeoutError(name, timeoutAt);
    workflow.emit(node, { type: 'waitStarted', name, ...(timeoutAt !== undefined ? { timeoutAt } : {}) });
    await storeSignalSchema(this.store, this.runId, signalSchemaName(name), schema);
    await this.flush();
    await this.storeTree();
    await this.store.updateRun(this.runId, {
      status: 'suspended',
      waitingFor: { name, since, ...(timeoutAt !== undefined ? { timeoutAt } : {}) },
    });
    this.suspended = true;
    throw new RunSuspendedError(`Run "${this.runId}" is suspended: it waits for signal "${name}".`, {
      ...workflow.errorDetails(node, undefined),
      runId: this.runId,
      waitingFor: name,
    });
  }
}

function replayedTools(stored: unknown): ToolCallRecord[] {
  if (!Array.isArray(stored)) return [];
  return stored.map((tool: { name?: string; kind?: 'local' | 'mcp'; isError?: boolean; output?: string }, index) => ({
    toolUseId: `replayed-${index}`,
    name: tool.name ?? 'unknown',
    kind: tool.kind ?? 'local',
    input: undefined,
    output: tool.output ?? '',
    isError: tool.isError === true,
    duration: 0,
    replayed: true,
  }));
}
