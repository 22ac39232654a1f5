import type { Context, Span, SpanContext, Tracer } from '@opentelemetry/api';
import type { WorkflowEvent } from '../types/events.js';
import type { WorkflowNode } from '../types/node.js';
import type { OtelApi } from './load-otel-api.js';
import type { SpanStart } from './span-start.js';

/** A node's span while it is open. */
export interface OpenSpan {
  readonly node: WorkflowNode;
  readonly span: Span;
  /** A context carrying this span: the explicit parent of its children's spans. */
  readonly context: Context;
  readonly startTime: number;
  readonly parent: OpenSpan | undefined;
  children: Set<OpenSpan> | null;
  /** An error was recorded on the span (its status is ERROR already). */
  failed: boolean;
  /** An agent call's latest answer from a provider model: its stop reason and the provider's own word for it. */
  providerAnswer?: { readonly stopReason: string | null; readonly word: string };
}

export interface OpenSpansOptions {
  readonly api: OtelApi;
  readonly tracer: Tracer;
  /** How a node's span starts (name, kind, attributes). */
  readonly describe: (node: WorkflowNode, event: WorkflowEvent | undefined) => SpanStart;
  /** The parent context of a span whose node has no parent (the root workflow). */
  readonly rootContext: () => Context;
  /** Sets a node's closing attributes just before its span ends without an end event of its own. */
  readonly closeImplicitly: (open: OpenSpan) => void;
}

/**
 * The spans of the nodes that are running, keyed by node id, each started with its parent's
 * span as the explicit parent (never the ambient context). An ended span is forgotten: only its
 * span context stays, weakly keyed by the node, so a late child still finds its parent and a
 * run of any length holds only its running spans.
 */
export class OpenSpans {
  private readonly open = new Map<string, OpenSpan>();
  private readonly ended = new WeakMap<WorkflowNode, SpanContext>();

  constructor(private readonly options: OpenSpansOptions) {}

  get size(): number {
    return this.open.size;
  }

  get(id: string): OpenSpan | undefined {
    return this.open.get(id);
  }

  /** The parent context for a span beneath `node` whatever its state: open, ended, or unseen (started now). */
  contextOf(node: WorkflowNode, time: number): Context {
    return this.ensure(node, undefined, time)?.context ?? this.endedContext(this.ended.get(node) as SpanContext);
  }

  /** A context whose span is an ended one (a non-recording wrapper of its identity). */
  private endedContext(ended: SpanContext): Context {
    return this.options.api.trace.setSpanContext(this.options.rootContext(), ended);
  }

  /**
   * The open span of `node`, started now if it has none, together with those of its ancestors
   * that were never seen (an observer attached mid-run), at their nodes' start times. Undefined
   * once the node's span has ended.
   */
  ensure(node: WorkflowNode, event: WorkflowEvent | undefined, time: number): OpenSpan | undefined {
    const known = this.open.get(node.id);
    if (known !== undefined) return known;
    if (this.ended.has(node)) return undefined;
    // Unseen nodes from `node` up to the first one with a span, started top down (no recursion).
    const unseen: WorkflowNode[] = [node];
    let parent: OpenSpan | undefined;
    let parentContext: Context | undefined;
    for (let up = node.parent; up !== null; up = up.parent) {
      parent = this.open.get(up.id);
      if (parent !== undefined) {
        parentContext = parent.context;
        break;
      }
      const ended = this.ended.get(up);
      if (ended !== undefined) {
        parentContext = this.endedContext(ended);
        break;
      }
      unseen.push(up);
    }
    let started: OpenSpan | undefined;
    for (let i = unseen.length - 1; i >= 0; i -= 1) {
      const at = unseen[i] as WorkflowNode;
      started = this.start(at, i === 0 ? event : undefined, parent, parentContext ?? this.options.rootContext(), time);
      parent = started;
      parentContext = started.context;
    }
    return started;
  }

  /** Lets a node that ran before (a workflow run again) start a new span. */
  forget(node: WorkflowNode): void {
    this.ended.delete(node);
  }

  /**
   * Ends `open` at `time`, after ending any span still open beneath it (a node that finished
   * without an end event, or is abandoned) at its node's end time.
   */
  end(open: OpenSpan, time: number): void {
    const order: OpenSpan[] = [];
    const stack: OpenSpan[] = [open];
    while (stack.length > 0) {
      const next = stack.pop() as OpenSpan;
      order.push(next);
      if (next.children !== null) for (const child of next.children) stack.push(child);
    }
    for (let i = order.length - 1; i > 0; i -= 1) {
      const below = order[i] as OpenSpan;
      this.options.closeImplicitly(below);
      this.close(below, below.node.endTime ?? time);
    }
    this.close(open, time);
  }

  /** Every open span, ended now (roots first, each after its subtree). */
  endAll(time: number): void {
    for (const open of [...this.open.values()]) {
      if (this.open.has(open.node.id) && (open.parent === undefined || !this.open.has(open.parent.node.id))) {
        this.options.closeImplicitly(open);
        this.end(open, time);
      }
    }
  }

  private start(node: WorkflowNode, event: WorkflowEvent | undefined, parent: OpenSpan | undefined, parentContext: Context, time: number): OpenSpan {
    const { api, tracer, describe } = this.options;
    const { name, kind, attributes } = describe(node, event);
    const startTime = node.startTime ?? time;
    const span = tracer.startSpan(name, { kind, attributes, startTime }, parentContext);
    const open: OpenSpan = {
      node,
      span,
      context: api.trace.setSpan(parentContext, span),
      startTime,
      parent,
      children: null,
      failed: false,
    };
    if (parent !== undefined) (parent.children ??= new Set()).add(open);
    this.open.set(node.id, open);
    return open;
  }

  private close(open: OpenSpan, time: number): void {
    open.span.end(Math.max(time, open.startTime));
    this.open.delete(open.node.id);
    open.parent?.children?.delete(open);
    // Only the span's identity is kept, not the ended span itself.
    this.ended.set(open.node, open.span.spanContext());
  }
}
