import { getCurrentWorkflow } from '../core/ambient.js';
import { runInScope } from '../core/scope.js';
import { TreeNode } from '../core/tree-node.js';
import type { Workflow } from '../core/workflow.js';
import type { EventPayload } from '../types/events.js';
import type { NodeKind, WorkflowStatus } from '../types/status.js';
import { keepShape } from '../util/lasting-shape.js';

/**
 * Where one agent call lands in the tree: its node under whatever is running now, and child
 * nodes for tool calls. Outside any workflow there is no tree and every method does nothing,
 * so the agent code never branches on it.
 */
export class CallTree {
  // Signals of enclosing budgets with a wallMs (see `limitBy`); none for almost every call.
  private limits: readonly AbortSignal[] | undefined;
  private combined: AbortSignal | undefined;

  private constructor(
    readonly workflow: Workflow | undefined,
    readonly node: TreeNode | undefined,
  ) {}

  static open(kind: NodeKind, name: string): CallTree {
    const workflow = getCurrentWorkflow();
    if (workflow === undefined) return CallTree.outside();
    const parent = workflow.mountPoint();
    const node = new TreeNode(kind, name, workflow);
    parent.addChild(node);
    node.start(workflow.clock.now());
    return new CallTree(workflow, node);
  }

  /** The tree of a call outside any workflow: no node, nobody to tell. */
  static outside(): CallTree {
    return new CallTree(undefined, undefined);
  }

  now(): number {
    return this.workflow?.clock.now() ?? Date.now();
  }

  /** A child node (a tool or MCP call) under this one. */
  child(kind: NodeKind, name: string): CallTree {
    if (this.workflow === undefined || this.node === undefined) return this;
    const node = new TreeNode(kind, name, this.workflow);
    this.node.addChild(node);
    node.start(this.workflow.clock.now());
    const tree = new CallTree(this.workflow, node);
    tree.limits = this.limits;
    return tree;
  }

  /** Requests and tools of this call also stop when one of `signals` aborts (a budget's wallMs ran out). */
  limitBy(signals: readonly AbortSignal[]): void {
    if (signals.length === 0) return;
    this.limits = signals;
    this.combined = undefined;
  }

  /** Reports `payload` on this node, at `timestamp` when the caller read the clock already. */
  emit(payload: EventPayload, timestamp?: number): void {
    if (this.workflow !== undefined && this.node !== undefined) this.workflow.emit(this.node, payload, timestamp);
  }

  /** Ends the node now, or at `at` (a replayed call's original end). */
  finish(status: WorkflowStatus, at?: number): void {
    if (this.workflow !== undefined && this.node !== undefined) this.node.finish(status, at ?? this.workflow.clock.now());
  }

  /** Runs `fn` with this node as the ambient one, so work it starts mounts beneath it. */
  run<R>(fn: () => R): R {
    if (this.workflow === undefined || this.node === undefined) return fn();
    return runInScope({ workflow: this.workflow, node: this.node }, fn);
  }

  get signal(): AbortSignal | undefined {
    const limits = this.limits;
    if (limits === undefined) return this.workflow?.signal;
    const run = this.workflow?.signal;
    return (this.combined ??= AbortSignal.any(run === undefined ? [...limits] : [run, ...limits]));
  }
}

// Every call's tree dies with its call: one is kept, so the code using trees stays optimized
// (made after the class, not in a static block: an instance made there did not keep the shape).
keepShape(CallTree.outside());
