import { setMaxListeners } from 'node:events';
import { UsageError, type GroundswellError } from '../errors/groundswell-error.js';
import { WorkflowCancelledError, WorkflowError } from '../errors/workflow-error.js';
import type { EventPayload, WorkflowEvent } from '../types/events.js';
import type { LogEntry, LogLevel } from '../types/logging.js';
import type { WorkflowNode } from '../types/node.js';
import type { WorkflowObserver, Unsubscribe } from '../types/observer.js';
import type { SerializedNode, StateSnapshot } from '../types/serialized.js';
import type { WorkflowStatus } from '../types/status.js';
import { systemClock, type Clock } from '../util/clock.js';
import { describeValue } from '../util/describe.js';
import { nextEventId, nextId } from '../util/ids.js';
import { toJsonSafe } from '../util/json-safe.js';
import { serializeError } from '../util/serialize-error.js';
import type { ErrorMergeStrategy } from './error-merge.js';
import { WorkflowLogger } from './logger.js';
import { ObserverHub } from './observer-hub.js';
import { DEFAULT_RETENTION, resolveRetention, type RetentionOptions } from './retention.js';
import type { RunOutcome } from './run-outcome.js';
import { currentScope } from './scope.js';
import { captureState } from './state.js';
import { addRunSecrets, carryRunSecrets, maskForRun } from './run-secrets.js';
import { ownRedactedValues } from './redacted-values.js';
import { TreeNode } from './tree-node.js';
import { EventRing } from './event-ring.js';
import { runWorkflow } from './run-workflow.js';
import { waitForSignal } from './wait-for.js';
import type { WaitOptions, WaitSchema } from './run-journal.js';
import { durableRunner } from './durable-runner.js';
import { createContext, type WorkflowContextOf } from './workflow-context.js';
import { lastPromptResult, replaceLastPromptResult, type AskedPrompt, type PromptAsker } from './last-prompt.js';
import { guidanceAt } from './step-guidance.js';
import type { WorkflowConfig } from './workflow-config.js';
import { brandWorkflowPrototype, type WorkflowRuntime } from './workflow-runtime.js';
import { validateWorkflowArgs } from './config/workflow-config.js';
import { validateObserver } from './config/observer.js';
import { keepShape } from '../util/lasting-shape.js';

/** What a functional workflow's executor receives (see `WorkflowContextOf` for its members). */
export type WorkflowContext = WorkflowContextOf<Workflow>;

export type WorkflowExecutor<T> = (ctx: WorkflowContext) => Promise<T> | T;

/**
 * A node of the workflow tree. Subclass it and decorate methods with `@Step`/`@Task`, or pass an
 * executor (`new Workflow(config, async ctx => ...)`, see `createWorkflow`).
 */
export class Workflow<T = unknown> implements WorkflowRuntime {
  /** @internal */ readonly treeNode: TreeNode;
  // The executor itself when the config is only a name (a functional child: one field, not two);
  // else the config, with an executor in `rare`.
  private spec: Readonly<WorkflowConfig> | WorkflowExecutor<T>;

  // Every field is 8 bytes on each child a parent keeps (decision 0091): the id and name live on
  // the node, and what most workflows never use lives in `rare`, made on first use.
  private parentRef: Workflow | null = null;
  private realm: Realm;
  private activeWork = 0;
  // The last run's value itself, a `Rejected` for a failure, `NOT_SETTLED` before one settles:
  // no outcome object per finished child.
  private settledAs: unknown = NOT_SETTLED;
  private rare: RareParts | null = null;

  constructor(name?: string, parent?: Workflow);
  constructor(config: WorkflowConfig, executorOrParent?: WorkflowExecutor<T> | Workflow);
  constructor(nameOrConfig?: string | WorkflowConfig, second?: WorkflowExecutor<T> | Workflow) {
    // `new Child('name')`, the usual child of a fan-out, is valid at a glance; anything else gets
    // the full check (and its message) without this workflow paying for a label and a parse.
    if (typeof nameOrConfig !== 'string' || second !== undefined || nameOrConfig.trim() === '') {
      validateWorkflowArgs(nameOrConfig, second, new.target.name);
    }
    // Copied with assign, not a spread: a frozen spread clone gets a hidden class of its own per
    // workflow (~120 bytes each, kept as long as the workflow is).
    // A config of a name alone (the usual child) shares one empty object: the name is on the node.
    const config: Readonly<WorkflowConfig> =
      typeof nameOrConfig === 'string' || onlyNamed(nameOrConfig) ? NAME_ONLY : Object.freeze(Object.assign({}, nameOrConfig));
    const name = typeof nameOrConfig === 'string' ? nameOrConfig : (nameOrConfig?.name ?? new.target.name);
    this.realm = ownRealm(config, this, DEFAULT_SETTINGS);
    this.treeNode = new TreeNode('workflow', name, this);
    const executor = typeof second === 'function' ? second : undefined;
    this.spec = executor !== undefined && config === NAME_ONLY ? executor : config;
    if (executor !== undefined && config !== NAME_ONLY) this.rareParts().executor = executor as WorkflowExecutor<unknown>;

    // A subclass's own `run()` is wrapped per instance so it gets status, events and the ambient
    // scope without calling super; the base `run()` wraps itself.
    const body = this.run;
    if (body !== Workflow.prototype.run) {
      Object.defineProperty(this, 'run', {
        value: wrapRun(this, body),
        enumerable: false,
        configurable: true,
        writable: true,
      });
    }

    if (second instanceof Workflow) second.attachChild(this);
  }

  /** Override in subclasses; functional workflows run their executor. */
  run(...args: unknown[]): Promise<T> {
    keepSubclassShape(this);
    const durable = durableRunner(this);
    if (durable !== undefined) return durable(this, args, () => this.runExecutor());
    return this.runExecutor();
  }

  private runExecutor(): Promise<T> {
    return runWorkflow(this, async () => {
      const executor = this.executor;
      if (executor === undefined) {
        throw new UsageError(
          `Workflow "${this.name}" has no executor: override run() in the subclass or pass an executor.`,
        );
      }
      return executor.call(this, createContext<Workflow>(this));
    });
  }

  get id(): string {
    return this.treeNode.id;
  }

  /** @internal What the workflow was configured with besides its name (one shared object when only a name). */
  get config(): Readonly<WorkflowConfig> {
    const spec = this.spec;
    return typeof spec === 'function' ? NAME_ONLY : spec;
  }

  /** @internal */
  get executor(): WorkflowExecutor<T> | undefined {
    const spec = this.spec;
    return typeof spec === 'function' ? spec : (this.rare?.executor as WorkflowExecutor<T> | undefined);
  }

  get name(): string {
    return this.treeNode.name;
  }

  /** @internal How the last run ended (see `resultOf`); undefined before the first one settles. */
  get lastOutcome(): RunOutcome<T> | undefined {
    const settled = this.settledAs;
    if (settled === NOT_SETTLED) return undefined;
    if (settled instanceof Rejected) return { status: 'rejected', error: settled.error };
    return { status: 'fulfilled', value: settled as T };
  }

  set lastOutcome(outcome: RunOutcome<T> | undefined) {
    if (outcome === undefined) this.settledAs = NOT_SETTLED;
    else this.settledAs = outcome.status === 'fulfilled' ? outcome.value : new Rejected(outcome.error);
  }

  /** Writes to the node running now in this workflow (its step, else the workflow itself). */
  get logger(): WorkflowLogger {
    const rare = this.rareParts();
    return (rare.logger ??= new WorkflowLogger(this));
  }

  get parent(): Workflow | null {
    return this.parentRef;
  }

  get children(): readonly Workflow[] {
    return this.rare?.children ?? NO_CHILDREN;
  }

  get root(): Workflow {
    return this.realm.root;
  }

  get status(): WorkflowStatus {
    return this.treeNode.status;
  }

  /** A read-only view of this workflow's node. */
  get node(): WorkflowNode {
    return this.treeNode;
  }

  getNode(): WorkflowNode {
    return this.treeNode;
  }

  /** Aborted when the workflow (or an ancestor) is cancelled; hand it to fetches and timers. */
  get signal(): AbortSignal {
    return this.controller().signal;
  }

  get isCancelled(): boolean {
    return this.rare?.cancelReason !== undefined;
  }

  /** @internal The reason given to `cancel()` (of this workflow or an ancestor), if it was cancelled. */
  get cancellation(): string | undefined {
    return this.rare?.cancelReason;
  }

  /** @internal */
  get clock(): Clock {
    return this.realm.clock;
  }

  /** @internal */
  get retention(): RetentionOptions {
    return this.realm.retention;
  }

  setStatus(status: WorkflowStatus): void {
    const node = this.treeNode;
    if (status === 'running') {
      if (node.status !== 'running') node.start(this.clock.now());
    } else if (status === 'idle') {
      node.markIdle();
    } else {
      node.finish(status, this.clock.now());
    }
  }

  isDescendantOf(ancestor: Workflow): boolean {
    for (let w = this.parentRef; w !== null; w = w.parentRef) {
      if (w === ancestor) return true;
    }
    return false;
  }

  /**
   * Makes `child` a child of this workflow. Its node mounts under the step or task of this
   * workflow that is running now (else under this workflow's node), and its future logs and
   * events go to this workflow's root.
   */
  attachChild(child: Workflow): void {
    if (!(child instanceof Workflow)) {
      throw new UsageError(`attachChild expects a Workflow, got ${describeValue(child)}.`);
    }
    if (child.parentRef === this) return;
    if (child === this) throw new UsageError(`Workflow "${this.name}" cannot be its own child.`);
    if (child.parentRef !== null) {
      throw new UsageError(
        `Cannot attach Workflow "${child.name}" (${child.id}) to "${this.name}" (${this.id}): it already ` +
          `has parent "${child.parentRef.name}" (${child.parentRef.id}); detach it first.`,
      );
    }
    if (this.isDescendantOf(child)) {
      throw new UsageError(
        `Attaching "${child.name}" under "${this.name}" would create a cycle: "${this.name}" descends from it.`,
      );
    }
    const rare = this.rareParts();
    const siblings = (rare.children ??= []);
    siblings.push(child);
    if (siblings.length > rare.childListLimit) this.forgetPrunedChildren(siblings, rare);
    child.parentRef = this;
    this.mountPoint().addChild(child.treeNode);
    carryRunSecrets(child, this);
    child.adopt(this.realm);
    // Built whole rather than through emit()'s spread (flat, no out-of-object properties): one per spawn.
    const node = this.treeNode;
    const timestamp = this.realm.clock.now();
    this.dispatch(node, { id: nextEventId(), nodeId: node.id, workflowId: this.id, timestamp, type: 'childAttached', childId: child.id, childName: child.name });
    this.announceTreeChange();
  }

  detachChild(child: Workflow): void {
    if (!(child instanceof Workflow) || child.parentRef !== this) {
      throw new UsageError(`${describeValue(child)} is not a child of Workflow "${this.name}" (${this.id}).`);
    }
    const siblings = this.rare?.children as Workflow[];
    siblings.splice(siblings.indexOf(child), 1);
    child.treeNode.parent?.removeChild(child.treeNode);
    child.parentRef = null;
    child.adopt({ root: child, ...DEFAULT_SETTINGS });
    carryRunSecrets(this.realm.root, child);
    this.emit(this.treeNode, { type: 'childDetached', childId: child.id, childName: child.name });
    this.announceTreeChange();
  }

  /** Only a root holds observers; they see every log and event of the whole subtree. */
  addObserver(observer: WorkflowObserver): Unsubscribe {
    const root = this.realm.root;
    if (root !== this) {
      throw new UsageError(
        `addObserver must be called on the root workflow: "${this.name}" is a child of ` +
          `"${root.name}" (${root.id}).`,
      );
    }
    validateObserver(observer, this.name);
    const hub = (this.rareParts().hub ??= new ObserverHub((callback, error) => {
      this.emit(this.treeNode, { type: 'observerError', callback, error: serializeError(error) });
    }));
    hub.add(observer);
    return () => hub.remove(observer);
  }

  removeObserver(observer: WorkflowObserver): void {
    this.rare?.hub?.remove(observer);
  }

  /** Captures the `@ObservedState` fields (redacted), stores them on the node and reports them. */
  snapshotState(): StateSnapshot {
    const state = this.maskedState();
    this.treeNode.stateSnapshot = state;
    // Built whole rather than through emit()'s spread: a workflow may snapshot on every step.
    const node = this.treeNode;
    const timestamp = this.realm.clock.now();
    this.dispatch(node, { id: nextEventId(), nodeId: node.id, workflowId: this.id, timestamp, type: 'stateSnapshot', state });
    this.realm.root.rare?.hub?.stateUpdated(this.treeNode);
    return state;
  }

  /**
   * Stops this workflow and its descendants for good: running (and not yet started) nodes become
   * `cancelled`, the signal aborts, and the next step or `run()` of any of them throws
   * `WorkflowCancelledError`.
   */
  cancel(reason = 'cancelled'): void {
    const stack: Workflow[] = [this];
    while (stack.length > 0) {
      const wf = stack.pop() as Workflow;
      const rare = wf.rareParts();
      if (rare.cancelReason === undefined) {
        rare.cancelReason = reason;
        wf.controller().abort(new WorkflowCancelledError(`Workflow "${wf.name}" was cancelled: ${reason}`, wf.errorDetails(wf.treeNode, reason)));
      }
      if (rare.children !== null) stack.push(...rare.children);
    }
    const now = this.clock.now();
    const nodes: TreeNode[] = [this.treeNode];
    while (nodes.length > 0) {
      const node = nodes.pop() as TreeNode;
      node.cancel(now);
      nodes.push(...node.children);
    }
    this.emit(this.treeNode, { type: 'cancelled', reason });
  }

  toJSON(): SerializedNode {
    return this.treeNode.toJSON();
  }

  /**
   * The value of the last agent call that succeeded in this workflow (after any replacement).
   * The same as `ctx.lastPromptResult` in a functional workflow.
   */
  protected get lastPromptResult(): unknown {
    return lastPromptResult(this);
  }

  /**
   * Asks again with `prompt` and puts the new call where the last one was: the old node hangs
   * beneath the new one (a replacement, not a fork). The same as `ctx.replaceLastPromptResult`.
   */
  protected replaceLastPromptResult<R>(prompt: AskedPrompt<R>, agent: PromptAsker): Promise<R> {
    return replaceLastPromptResult(this, prompt, agent);
  }

  /** In a durable run, the value of signal `name`, else the run suspends (as `ctx.waitFor`). */
  protected waitFor<R>(name: string, schema: WaitSchema<R>, options?: WaitOptions): Promise<R> {
    return waitForSignal(this, name, schema, options);
  }

  /** Guidance a workflow-level reflection left for the step running now (as `ctx.reflection`). */
  protected get reflection(): { readonly guidance: readonly string[] } {
    return { guidance: guidanceAt(currentScope()?.node) };
  }

  /** @internal Appends an event to `node` and delivers it to the current root's observers. */
  emit(node: TreeNode, payload: EventPayload, timestamp: number = this.realm.clock.now()): WorkflowEvent {
    const event = {
      id: nextEventId(),
      nodeId: node.id,
      workflowId: this.id,
      timestamp,
      ...payload,
    } as WorkflowEvent;
    return this.dispatch(node, event);
  }

  /**
   * @internal Records a fully built event on `node` and delivers it to the current root's
   * observers, with the run's secrets masked: the one door every event goes through. `ownStep`:
   * the event is the step node's own start or end, built from it (see `recordOwnStepEvent`).
   */
  dispatch(node: TreeNode, built: WorkflowEvent, ownStep = false): WorkflowEvent {
    const event = maskForRun(this, built);
    // A masked copy is another event: the node compares it with itself as any other.
    if (ownStep && event === built) node.recordOwnStepEvent(event);
    else node.recordEvent(event);
    this.realm.root.rare?.hub?.event(event, node);
    return event;
  }

  /** @internal */
  writeLog(level: LogLevel, message: string, data: unknown, parentLogId: string | undefined): LogEntry {
    const node = this.mountPoint();
    const entry: { -readonly [K in keyof LogEntry]: LogEntry[K] } = {
      id: nextId('log'),
      workflowId: this.id,
      nodeId: node.id,
      timestamp: this.realm.clock.now(),
      level,
      message: maskForRun(this, message),
    };
    if (data !== undefined) entry.data = maskForRun(this, toJsonSafe(data));
    if (parentLogId !== undefined) entry.parentLogId = parentLogId;
    node.recordLog(entry);
    this.realm.root.rare?.hub?.log(entry);
    return entry;
  }

  /** @internal The node new work of this workflow hangs under: the running step/task, else the workflow. */
  mountPoint(): TreeNode {
    const scope = currentScope();
    return scope !== undefined && scope.workflow === this ? scope.node : this.treeNode;
  }

  /** @internal Everything a WorkflowError needs, captured at the moment of failure. */
  errorDetails(node: TreeNode, cause: unknown): ConstructorParameters<typeof WorkflowError>[1] {
    return { workflowId: this.id, nodeId: node.id, cause, state: this.maskedState(), logs: this.collectLogs() };
  }

  /**
   * @internal The observed state (redacted), with the run's secrets masked in the fields that are
   * not redacted; reading the redacted values also teaches the run to mask them everywhere.
   */
  maskedState(): StateSnapshot {
    addRunSecrets(this, ownRedactedValues(this));
    return maskForRun(this, captureState(this));
  }

  /** @internal Logs of this workflow's own nodes (not of child workflows), oldest first. */
  collectLogs(): LogEntry[] {
    const logs: LogEntry[] = [];
    const nodes: TreeNode[] = [this.treeNode];
    while (nodes.length > 0) {
      const node = nodes.pop() as TreeNode;
      logs.push(...node.logs);
      for (const child of node.children) if (child.owner === this) nodes.push(child);
    }
    return logs.sort((a, b) => a.timestamp - b.timestamp);
  }

  /** @internal Refuses new work once the workflow (or an ancestor) was cancelled. */
  throwIfCancelled(node: TreeNode): void {
    const rare = this.rare;
    if (rare !== null && rare.cancelReason !== undefined) {
      throw new WorkflowCancelledError(
        `Workflow "${this.name}" was cancelled (${rare.cancelReason}); no further steps run.`,
        this.errorDetails(node, rare.abort?.signal.reason),
      );
    }
  }

  /** @internal Counts steps and tasks of this workflow that have started and not yet ended. */
  beginWork(): void {
    this.activeWork += 1;
  }

  /** @internal */
  endWork(): void {
    this.activeWork -= 1;
    const rare = this.rare;
    if (this.activeWork === 0 && rare !== null && rare.idleWaiters !== null) {
      const waiters = rare.idleWaiters;
      rare.idleWaiters = null;
      for (const wake of waiters) wake();
    }
  }

  /**
   * @internal Resolves once no step or task of this workflow is running, so a run that failed
   * fast (one rejection in a Promise.all) still settles its siblings before it ends.
   */
  whenIdle(): Promise<void> {
    if (this.activeWork === 0) return Promise.resolve();
    const rare = this.rareParts();
    return new Promise((resolve) => (rare.idleWaiters ??= []).push(resolve));
  }

  /**
   * Drops finished children whose tree nodes were pruned, or hang beneath a pruned step or task of
   * this workflow (a child spawned inside a step, a @Task's children); they still report to the
   * root if they log.
   */
  private forgetPrunedChildren(list: Workflow[], rare: RareParts): void {
    let write = 0;
    const own = this.treeNode;
    // Indexed: this runs once a batch, in a tier that may make an iterator for a for-of.
    for (let read = 0; read < list.length; read += 1) {
      const child = list[read] as Workflow;
      if (child.treeNode.prunedBelow(own)) continue;
      list[write] = child;
      write += 1;
    }
    list.length = write;
    rare.childListLimit = write + Math.max(CHILD_LIST_BATCH, this.retention.maxChildrenPerNode >> 2);
  }

  private controller(): AbortController {
    const rare = this.rareParts();
    if (rare.abort === null) {
      rare.abort = new AbortController();
      // Every in-flight request of every step listens on this one signal; many is normal here.
      setMaxListeners(0, rare.abort.signal);
    }
    return rare.abort;
  }

  private rareParts(): RareParts {
    return (this.rare ??= {
      executor: undefined,
      children: null,
      childListLimit: 4 * CHILD_LIST_BATCH,
      hub: null,
      logger: null,
      abort: null,
      cancelReason: undefined,
      idleWaiters: null,
    });
  }

  /** New root (and inherited settings) for this workflow and all its descendants: `inherited`'s. */
  private adopt(inherited: Realm): void {
    const stack: Workflow[] = [this];
    this.realm = realmUnder(this.config, inherited);
    while (stack.length > 0) {
      const wf = stack.pop() as Workflow;
      for (const child of wf.children) {
        child.realm = realmUnder(child.config, wf.realm);
        stack.push(child);
      }
    }
  }

  private announceTreeChange(): void {
    const root = this.realm.root;
    const node = root.treeNode;
    const timestamp = root.realm.clock.now();
    root.dispatch(node, { id: nextEventId(), nodeId: node.id, workflowId: root.id, timestamp, type: 'treeUpdated', rootId: root.id });
    root.rare?.hub?.treeChanged(root.treeNode);
  }
}

/**
 * A subclass's `run` wrapped for one instance. Built here rather than inline in the constructor:
 * transpilers that keep function names (tsx, esbuild's keepNames) would rename the closure
 * through a defineProperty call on every instance.
 */
function wrapRun<T>(workflow: Workflow<T>, body: (...args: unknown[]) => Promise<T>): (...args: unknown[]) => Promise<T> {
  return function (...args: unknown[]): Promise<T> {
    keepSubclassShape(workflow);
    const durable = durableRunner(workflow);
    if (durable !== undefined) return durable(workflow, args, (stored = args) => runWorkflow(workflow, () => body.apply(workflow, stored as unknown[])));
    return runWorkflow(workflow, () => body.apply(workflow, args));
  };
}

/** Workflow subclasses whose shape a keeper holds (see `keepSubclassShape`). */
const subclassShapes = new WeakSet<object>();

/**
 * Keeps the shape of `workflow`'s class (a subclass of Workflow) alive after its last instance,
 * from the first run of one. Every run's workflows die with its tree, and a full GC then takes
 * the subclass's shapes along, and with them the code compiled against them (most of the runner:
 * every workflow of the run passes through it), which runs slowly until compiled again. The
 * keeper is made like an instance (the Workflow constructor with the class as `new.target`) and
 * given the instance's other own properties in the same order with values of the same kind
 * (0 for a small integer, `''` for a string, an empty object for an object...), so it has the
 * same shape and holds nothing of the instance. Decision 0095.
 */
function keepSubclassShape(workflow: Workflow): void {
  const type: unknown = workflow.constructor;
  if (type === Workflow || typeof type !== 'function' || subclassShapes.has(type)) return;
  subclassShapes.add(type);
  try {
    keepShape(shapeKeeperOf(workflow, type));
  } catch {
    // A class whose instances cannot be copied so only compiles again after a full GC, as before.
  }
}

/** An object of `workflow`'s shape holding none of its values (see `keepSubclassShape`). */
function shapeKeeperOf(workflow: Workflow, type: Function): object {
  const keeper = Reflect.construct(Workflow, ['kept for its shape'], type) as object;
  const made = new Set(Reflect.ownKeys(keeper));
  for (const key of Reflect.ownKeys(workflow)) {
    if (made.has(key)) continue;
    const property = Object.getOwnPropertyDescriptor(workflow, key);
    // An accessor's functions are the instance's own: the shapes part ways there.
    if (property === undefined || !('value' in property)) break;
    Object.defineProperty(keeper, key, { ...property, value: sameKind(property.value) });
  }
  return keeper;
}

const KEPT_OBJECT = Object.freeze({});
const KEPT_FUNCTION = (): void => undefined;
const KEPT_SYMBOL = Symbol('kept for its shape');

/** A value V8 keeps in a field as it keeps `value` (a small integer, a number, a pointer), and none of its contents. */
function sameKind(value: unknown): unknown {
  switch (typeof value) {
    case 'number':
      return Number.isInteger(value) && value >= -(2 ** 30) && value < 2 ** 30 && !Object.is(value, -0) ? 0 : 0.5;
    case 'string':
      return '';
    case 'boolean':
      return false;
    case 'bigint':
      return 0n;
    case 'symbol':
      return KEPT_SYMBOL;
    case 'function':
      return KEPT_FUNCTION;
    case 'undefined':
      return undefined;
    default:
      return value === null ? null : KEPT_OBJECT;
  }
}

/**
 * What most workflows never use, made on first use: children, observers, a logger, a cancel, a
 * wait for idle. A parent spawning in a loop keeps a thousand children that have none of them.
 */
interface RareParts {
  /** A functional workflow's executor when its config sets more than a name. */
  executor: WorkflowExecutor<unknown> | undefined;
  // Null until the first child. The list is compacted in batches like node lists: finished
  // children whose nodes retention pruned are forgotten, so a parent spawning in a loop stays
  // bounded and linear.
  children: Workflow[] | null;
  childListLimit: number;
  hub: ObserverHub | null;
  logger: WorkflowLogger | null;
  abort: AbortController | null;
  cancelReason: string | undefined;
  idleWaiters: Array<() => void> | null;
}

/** A failed run's error, as `settledAs` keeps it (a class of this module: no run value is one). */
class Rejected {
  constructor(readonly error: GroundswellError) {}
}

/** `settledAs` before a run settled. */
const NOT_SETTLED: unique symbol = Symbol('not settled');

/** The config of every workflow configured by a name alone. */
const NAME_ONLY: Readonly<WorkflowConfig> = Object.freeze({});

/** True when `config` sets nothing but the name (or nothing at all). */
function onlyNamed(config: WorkflowConfig | undefined): boolean {
  if (config === undefined) return true;
  for (const key in config) if (key !== 'name') return false;
  return true;
}

interface Settings {
  readonly clock: Clock;
  readonly retention: RetentionOptions;
}

const CHILD_LIST_BATCH = 16;

const NO_CHILDREN: readonly Workflow[] = Object.freeze([]);

const DEFAULT_SETTINGS: Settings = Object.freeze({ clock: systemClock, retention: DEFAULT_RETENTION });

/**
 * A workflow's root with its clock and retention, in one object shared by every workflow of a
 * tree that sets neither: one field on each, not two.
 */
interface Realm extends Settings {
  readonly root: Workflow;
}

/** The realm of a workflow under `inherited`: that one itself unless it sets a clock or retention. */
function realmUnder(config: WorkflowConfig, inherited: Realm): Realm {
  if (config.clock === undefined && config.retention === undefined) return inherited;
  return ownRealm(config, inherited.root, inherited);
}

/** A realm of its own: `root`, with the workflow's own clock/retention over `inherited`. */
function ownRealm(config: WorkflowConfig, root: Workflow, inherited: Settings): Realm {
  return {
    root,
    clock: config.clock ?? inherited.clock,
    retention: resolveRetention(config.retention, inherited.retention),
  };
}

// `isWorkflow` (workflow-runtime.ts) answers `instanceof Workflow` for modules below this class.
brandWorkflowPrototype(Workflow.prototype);

// A run's workflows and nodes all die with its tree: one of each is kept (with a logger, an
// observer hub and an event ring), so a full GC between runs does not take their shapes, and the
// code compiled against them, along (decision 0095). A workflow subclass's own shapes still go.
const shapeKeeper = keepShape(new Workflow('kept for its shape'));
keepShape(shapeKeeper.logger);
keepShape(new ObserverHub(() => undefined));
keepShape(new EventRing(0));
