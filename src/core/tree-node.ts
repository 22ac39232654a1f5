import type { StepEndEvent, WorkflowEvent } from '../types/events.js';
import type { TokenUsage } from '../types/usage.js';
import type { LogEntry } from '../types/logging.js';
import type { WorkflowNode } from '../types/node.js';
import type { SerializedNode, StateSnapshot } from '../types/serialized.js';
import type { NodeKind, WorkflowStatus } from '../types/status.js';
import { idTag, nextIdOf, type IdTag } from '../util/ids.js';
import { RingBuffer } from '../util/ring-buffer.js';
import { EventRing } from './event-ring.js';
import { afterTicks, eraBase, eraOf, MAX_ERAS, ticksBetween, ticksFound } from './packed-time.js';
import { compareEventTime, isInTimeOrder } from '../util/time-order.js';
import type { NodeKey } from '../util/node-key.js';
import { NODE_USAGE } from '../util/node-usage.js';
import type { RetentionOptions } from './retention.js';

const NONE: readonly never[] = Object.freeze([]);
/** What a node with no history has dropped (frozen: shared by every such node). */
const NOTHING_DROPPED: { events: number; logs: number; children: number } = Object.freeze({ events: 0, logs: 0, children: 0 });

/** What a node needs from the workflow that owns it. */
export interface NodeOwner {
  readonly id: string;
  readonly retention: RetentionOptions;
}

/**
 * The mutable node behind the read-only `WorkflowNode` view. Lists are allocated on first use
 * and bounded by the owning workflow's retention, so a step that logs nothing costs little.
 */
export class TreeNode implements WorkflowNode {
  readonly id: string;
  parent: TreeNode | null = null;
  /**
   * The timed, pruned and replayed flags, the kind, the status and a step's attempts, packed in
   * one small integer: a long run keeps hundreds of thousands of nodes, and every field is 8
   * bytes on each of them.
   */
  private bits = Bits.TIMED;
  // Start and end as ticks (an era's and the start's, see packed-time.ts) where exact, flagged in
  // `bits`; else the readings themselves. Read through `begin` and `end`.
  private beginKept: number | undefined = undefined;
  private endKept: number | undefined = undefined;
  // The children, or once the node has one, the history that holds them (one field, not two: a
  // kept child workflow's node and its step's have children or nothing else). A single child is
  // held itself until a second comes (a child workflow's node, a step that spawned one): no array.
  private more: TreeNode | TreeNode[] | NodeHistory | null = null;
  // Retained bytes and objects per node are what a long run pays for in GC time, so a step keeps
  // its start/end as numbers (rebuilt as events on read) and everything else a typical step
  // never has (logs, other events, a state snapshot) lives in `history`, allocated on first use.
  private startSeq = 0;
  private endSeq = 0;

  constructor(
    kind: NodeKind,
    readonly name: string,
    readonly owner: NodeOwner,
    /** An id minted before the node exists (a node rebuilt from another process's tree). */
    id?: string,
  ) {
    const code = kindCode(kind);
    this.id = id ?? nextIdOf(ID_TAGS[code] as IdTag);
    this.bits |= code << Bits.KIND_SHIFT;
  }

  /** `kind === 'workflow'` without a table lookup (asked on every event a node records). */
  private isWorkflowNode(): boolean {
    return (this.bits & (Bits.FIELD_MASK << Bits.KIND_SHIFT)) === Bits.WORKFLOW_KIND;
  }

  get kind(): NodeKind {
    return KINDS[(this.bits >>> Bits.KIND_SHIFT) & Bits.FIELD_MASK] as NodeKind;
  }

  get status(): WorkflowStatus {
    return STATUSES[(this.bits >>> Bits.STATUS_SHIFT) & Bits.FIELD_MASK] as WorkflowStatus;
  }

  private setStatus(status: WorkflowStatus): void {
    this.bits = (this.bits & ~(Bits.FIELD_MASK << Bits.STATUS_SHIFT)) | (statusCode(status) << Bits.STATUS_SHIFT);
  }

  /** False for steps declared with `trackTiming: false`: times are kept but not shown. */
  get timed(): boolean {
    return (this.bits & Bits.TIMED) !== 0;
  }

  set timed(timed: boolean) {
    this.bits = timed ? this.bits | Bits.TIMED : this.bits & ~Bits.TIMED;
  }

  private get begin(): number | undefined {
    const kept = this.beginKept;
    if (kept === undefined || (this.bits & Bits.BEGIN_TICKS) === 0) return kept;
    return afterTicks(eraBase((this.bits >>> Bits.ERA_SHIFT) & Bits.ERA_MASK), kept);
  }

  private set begin(at: number | undefined) {
    // The end is kept relative to the start: read it before the start moves, keep it again after.
    const end = this.endKept === undefined ? undefined : this.end;
    if (at === undefined) {
      this.bits &= ~(Bits.BEGIN_TICKS | (Bits.ERA_MASK << Bits.ERA_SHIFT));
      this.beginKept = undefined;
    } else {
      this.keepBegin(at);
    }
    if (end !== undefined) this.end = end;
  }

  /** Keeps `at` as the start, as ticks of its era where exact (the end, if any, is not kept again). */
  private keepBegin(at: number): void {
    // Each field written once: a fraction stored first would box a number only to drop it.
    const era = eraOf(at);
    const bits = this.bits & ~(Bits.BEGIN_TICKS | (Bits.ERA_MASK << Bits.ERA_SHIFT));
    if (era >= 0) {
      this.bits = bits | Bits.BEGIN_TICKS | (era << Bits.ERA_SHIFT);
      this.beginKept = ticksFound();
    } else {
      this.bits = bits;
      this.beginKept = at;
    }
  }

  private get end(): number | undefined {
    const kept = this.endKept;
    if (kept === undefined || (this.bits & Bits.END_TICKS) === 0) return kept;
    return afterTicks(this.begin as number, kept);
  }

  private set end(at: number | undefined) {
    const begin = this.begin;
    const ticks = at === undefined || begin === undefined ? -1 : ticksBetween(begin, at);
    if (ticks >= 0) {
      this.bits |= Bits.END_TICKS;
      this.endKept = ticks;
    } else {
      this.bits &= ~Bits.END_TICKS;
      this.endKept = at;
    }
  }

  /** A step's attempts, kept only with its end kept as its id. */
  private get attempts(): number {
    return this.bits >>> Bits.ATTEMPTS_SHIFT;
  }

  get startTime(): number | undefined {
    return this.timed ? this.begin : undefined;
  }

  get endTime(): number | undefined {
    return this.timed ? this.end : undefined;
  }

  get duration(): number | undefined {
    if (!this.timed) return undefined;
    const begin = this.begin;
    const kept = this.endKept;
    if (begin === undefined || kept === undefined) return undefined;
    const end = (this.bits & Bits.END_TICKS) === 0 ? kept : afterTicks(begin, kept);
    return end - begin;
  }

  /**
   * True for a node a durable run served from its store instead of running it: a replayed step or
   * agent call, and every node a replayed step held. Its work ran in an earlier process.
   */
  get replayed(): boolean {
    return (this.bits & Bits.REPLAYED) !== 0;
  }

  markReplayed(): void {
    this.bits |= Bits.REPLAYED;
  }

  /**
   * Moves a started node's start back to `at`: the node stands for work begun earlier (a replayed
   * part of a durable run, a resumed root). Its own start event, kept as numbers, moves with it.
   */
  backdateStart(at: number): void {
    if (this.begin !== undefined) this.begin = at;
  }

  /** Marks the node running from `now` (a re-run clears the previous end). */
  start(now: number): void {
    if (this.endSeq !== 0) this.keepEndAsEvent();
    // Running, and no end yet: cleared directly, so there is no end to keep again.
    this.bits = (this.bits & ~((Bits.FIELD_MASK << Bits.STATUS_SHIFT) | Bits.END_TICKS)) | (Bits.RUNNING_CODE << Bits.STATUS_SHIFT);
    this.endKept = undefined;
    this.keepBegin(now);
  }

  /**
   * Marks the node finished unless it was already cancelled (a cancel is never overwritten).
   * True when it did: the node now ends at `now` with `status`.
   */
  finish(status: WorkflowStatus, now: number): boolean {
    if ((this.bits & (Bits.FIELD_MASK << Bits.STATUS_SHIFT)) === Bits.CANCELLED_STATUS) return false;
    if (this.endSeq !== 0) this.keepEndAsEvent();
    // A step's usual end without the status table's switch.
    this.bits = (this.bits & ~(Bits.FIELD_MASK << Bits.STATUS_SHIFT)) | ((status === 'completed' ? Bits.COMPLETED_CODE : statusCode(status)) << Bits.STATUS_SHIFT);
    this.end = now;
    return true;
  }

  /** Moves a running or not yet started node to `cancelled` at `now`; finished ones stay as they are. */
  cancel(now: number): void {
    if (this.status !== 'running' && this.status !== 'idle') return;
    this.keepEndAsEvent();
    this.setStatus('cancelled');
    this.end = now;
  }

  /** Back to `idle` (a workflow reset before a run); an end kept as numbers becomes an event first. */
  markIdle(): void {
    this.keepEndAsEvent();
    this.setStatus('idle');
  }

  get workflowId(): string {
    return this.owner.id;
  }

  /** A fresh array of one for a node with a single child (it keeps no array of its own). */
  get children(): readonly TreeNode[] {
    const list = this.childList;
    if (list === null) return NONE;
    return Array.isArray(list) ? list : [list];
  }

  /**
   * Oldest first: a step's start, then up to `maxEventsPerNode` others (the first two and the
   * newest of the rest), then a step's end.
   */
  get events(): readonly WorkflowEvent[] {
    const out: WorkflowEvent[] = [];
    const history = this.history;
    if (this.startSeq !== 0) out.push(this.ownStartEvent());
    if (history?.firstEvent) out.push(history.firstEvent);
    if (history?.secondEvent) out.push(history.secondEvent);
    const later = history?.laterEvents ?? null;
    if (later instanceof EventRing) out.push(...later.toArray(this.id, this.workflowId));
    else if (later !== null) out.push(later);
    if (this.endSeq !== 0) out.push(this.ownEndEvent());
    return out;
  }

  /** `events.length` without rebuilding a step's start and end events (the viewer counts them per batch). */
  get eventCount(): number {
    const history = this.history;
    let count = (this.startSeq !== 0 ? 1 : 0) + (this.endSeq !== 0 ? 1 : 0);
    if (history?.firstEvent) count += 1;
    if (history?.secondEvent) count += 1;
    const later = history?.laterEvents ?? null;
    return count + (later instanceof EventRing ? later.size : later !== null ? 1 : 0);
  }

  get logs(): readonly LogEntry[] {
    return this.history?.logs?.toArray() ?? NONE;
  }

  get stateSnapshot(): StateSnapshot | null {
    return this.history?.state ?? null;
  }

  set stateSnapshot(state: StateSnapshot | null) {
    this.record().state = state;
  }

  /** A feature's value on this node (see `createNodeKey`); undefined when never set. */
  getAttr<T>(key: NodeKey<T>): T | undefined {
    const history = this.history;
    if (history === null) return undefined;
    return (history.soleKey === key ? history.soleValue : history.attrs?.get(key)) as T | undefined;
  }

  /**
   * Sets (or, with undefined, removes) a feature's value on this node. The first key lives in the
   * history itself, a map only from the second: most nodes with a value hold one (an agent
   * call's usage), and a map is ~180 bytes on every one of them.
   */
  setAttr<T>(key: NodeKey<T>, value: T | undefined): void {
    if (value === undefined) {
      const history = this.history;
      if (history === null) return;
      if (history.soleKey === key) {
        history.soleKey = null;
        history.soleValue = undefined;
      } else {
        history.attrs?.delete(key);
      }
      return;
    }
    const history = this.record();
    // The sole slot is taken only while no map exists, so export order stays the order keys were set.
    if (history.soleKey === key) history.soleValue = value;
    else if (history.soleKey === null && (history.attrs === null || history.attrs.size === 0)) {
      history.soleKey = key;
      history.soleValue = value;
    } else (history.attrs ??= new Map()).set(key, value);
  }

  /** What the `merge` of `key` folded in from pruned children's subtrees; undefined when nothing. */
  getDroppedAttr<T>(key: NodeKey<T>): T | undefined {
    return this.history?.prunedAttrs?.get(key) as T | undefined;
  }

  /** Tokens spent by this node itself (the usage key, for the `WorkflowNode` view). */
  get usage(): TokenUsage | null {
    return this.getAttr(NODE_USAGE) ?? null;
  }

  get dropped(): { events: number; logs: number; children: number; usage?: TokenUsage } {
    const history = this.history;
    // Most nodes have dropped nothing: one shared answer, not an object per read (a viewer reads it for every row).
    if (history === null) return NOTHING_DROPPED;
    const dropped = {
      events: history.laterEvents instanceof EventRing ? history.laterEvents.dropped : 0,
      logs: history?.logs?.dropped ?? 0,
      children: history?.prunedChildren ?? 0,
    };
    const pruned = history?.prunedAttrs;
    if (pruned === null || pruned === undefined) return dropped;
    const out: Record<string, unknown> = dropped;
    for (const [key, value] of pruned) if (key.exportAs !== undefined) out[key.exportAs] = exported(key, value);
    return dropped;
  }

  /** True once retention removed this node from its parent's list. */
  get pruned(): boolean {
    return (this.bits & Bits.PRUNED) !== 0;
  }

  /** True when retention removed this node, or a node between it and `top`, from its parent's list. */
  prunedBelow(top: TreeNode): boolean {
    for (let node: TreeNode | null = this; node !== null && node !== top; node = node.parent) if (node.pruned) return true;
    return false;
  }

  recordEvent(event: WorkflowEvent): void {
    // Anything recorded after the node's own end follows it: that end becomes an ordinary event.
    this.keepEndAsEvent();
    const max = this.owner.retention.maxEventsPerNode;
    // A node's own start and end are kept as their ids and rebuilt on read, only when the rebuilt
    // event is identical (same time, name, status) and in the same place (nothing recorded before
    // the start). A step's are outside the budget (decision 0003); a workflow's count in it as
    // before, so its end is kept as numbers only where it would have been kept as an event.
    if (max > 0 && this.startSeq === 0 && this.isOwnStart(event) && !this.hasEvents()) {
      this.startSeq = event.id;
      return;
    }
    if (max > 0 && this.endSeq === 0 && this.isOwnEnd(event) && (!this.isWorkflowNode() || this.hasRoom(max))) {
      this.endSeq = event.id;
      if (event.type === 'stepEnd') this.bits = (this.bits & Bits.LOW_BITS) | (event.attempts << Bits.ATTEMPTS_SHIFT);
      return;
    }
    this.keep(event, max);
  }

  /**
   * Records a step's own `stepStart` built right after `start` (nothing recorded since), or its
   * own `stepEnd` built from the node right after a `finish` that ended it: the same as
   * `recordEvent`, which would find it to be the node's own and keep it as its id, without reading
   * every field back to compare (a step records both). Anything else goes through `recordEvent`.
   */
  recordOwnStepEvent(event: WorkflowEvent): void {
    const max = this.owner.retention.maxEventsPerNode;
    if (max > 0 && !this.isWorkflowNode()) {
      if (event.type === 'stepStart' && this.startSeq === 0 && this.endSeq === 0 && !this.hasEvents()) {
        this.startSeq = event.id;
        return;
      }
      if (event.type === 'stepEnd' && this.endSeq === 0 && packableAttempts(event.attempts)) {
        this.endSeq = event.id;
        this.bits = (this.bits & Bits.LOW_BITS) | (event.attempts << Bits.ATTEMPTS_SHIFT);
        return;
      }
    }
    this.recordEvent(event);
  }

  private keep(event: WorkflowEvent, max: number): void {
    const history = this.record();
    const slot = this.nextSlot(history, max);
    if (slot === 'first') history.firstEvent = event;
    else if (slot === 'second') history.secondEvent = event;
    else this.keepLater(history, event, max);
  }

  /**
   * A third event is kept as it is, a ring made only for a fourth: an agent call's node has three
   * (its start, one request, its end), and a ring is ~150 bytes on every one of them.
   */
  private keepLater(history: NodeHistory, event: WorkflowEvent, max: number): void {
    const later = history.laterEvents;
    if (later instanceof EventRing) {
      later.push(event, this.id, this.workflowId);
      return;
    }
    const capacity = Math.max(0, max - 2);
    if (later === null && capacity > 0) {
      history.laterEvents = event;
      return;
    }
    const ring = new EventRing(capacity);
    if (later !== null) ring.push(later, this.id, this.workflowId);
    ring.push(event, this.id, this.workflowId);
    history.laterEvents = ring;
  }

  /**
   * Where `keep` puts the next event: one of the two oldest places, else the ring of the newest.
   * A workflow's start kept as numbers takes the first of the two oldest places.
   */
  private nextSlot(history: NodeHistory | null, max: number): 'first' | 'second' | 'later' {
    if ((history?.firstEvent ?? null) === null && max >= 1 && !(this.startSeq !== 0 && this.isWorkflowNode())) return 'first';
    if ((history?.secondEvent ?? null) === null && max >= 2) return 'second';
    return 'later';
  }

  /** Whether `keep` would store one more event without dropping one. */
  private hasRoom(max: number): boolean {
    const history = this.history;
    if (this.nextSlot(history, max) !== 'later') return true;
    const later = history?.laterEvents ?? null;
    if (later === null) return max > 2;
    return later instanceof EventRing ? later.size < later.capacity : max > 3;
  }

  private hasEvents(): boolean {
    if (this.more === null) return false;
    const history = this.history;
    return history !== null && (history.firstEvent !== null || history.secondEvent !== null || history.laterEvents !== null);
  }

  /** The own end kept as numbers moves into the history before anything could change or follow it. */
  private keepEndAsEvent(): void {
    if (this.endSeq === 0) return;
    const end = this.ownEndEvent();
    this.endSeq = 0;
    this.keep(end, this.owner.retention.maxEventsPerNode);
  }

  private isOwnStart(event: WorkflowEvent): boolean {
    return event.type === this.startType() && event.timestamp === this.begin && this.isOwn(event) && event.name === this.name;
  }

  private isOwnEnd(event: WorkflowEvent): boolean {
    const end = this.end;
    if (event.timestamp !== end || !this.isOwn(event)) return false;
    // The duration as `duration` computes it, from the start and end read once.
    const begin = this.begin;
    const duration = this.timed && begin !== undefined && end !== undefined ? end - begin : undefined;
    if (this.isWorkflowNode()) {
      return event.type === 'workflowEnd' && event.name === this.name && event.status === this.status && event.duration === (duration ?? 0);
    }
    return (
      event.type === 'stepEnd' &&
      event.name === this.name &&
      event.status === this.status &&
      event.duration === duration &&
      packableAttempts(event.attempts)
    );
  }

  private isOwn(event: WorkflowEvent): boolean {
    return event.nodeId === this.id && event.workflowId === this.workflowId;
  }

  recordLog(entry: LogEntry): void {
    (this.record().logs ??= new RingBuffer(this.owner.retention.maxLogsPerNode)).push(entry);
  }

  private get history(): NodeHistory | null {
    const more = this.more;
    return more === null || more instanceof TreeNode || Array.isArray(more) ? null : more;
  }

  private get childList(): TreeNode | TreeNode[] | null {
    const more = this.more;
    return more === null || more instanceof TreeNode || Array.isArray(more) ? more : more.children;
  }

  private set childList(list: TreeNode | TreeNode[] | null) {
    const history = this.history;
    if (history !== null) history.children = list;
    else this.more = list;
  }

  private record(): NodeHistory {
    const history = this.history;
    if (history !== null) return history;
    // A literal, not a class: its shape lives as long as this code does, while a class's shapes
    // die with its last instance and take the compiled code that used them along.
    const made: NodeHistory = {
      children: this.childList,
      state: null,
      soleKey: null,
      soleValue: undefined,
      attrs: null,
      firstEvent: null,
      secondEvent: null,
      laterEvents: null,
      logs: null,
      prunedChildren: 0,
      prunedAttrs: null,
      unprunable: 0,
    };
    this.more = made;
    return made;
  }

  addChild(child: TreeNode): void {
    child.parent = this;
    // The child list read here rather than through `childList`: this runs for every step.
    const more = this.more;
    const list = more === null || more instanceof TreeNode || Array.isArray(more) ? more : more.children;
    if (list === null) {
      this.childList = child;
      return;
    }
    // A second child gets a list of two, not the 17 slots a push into `[]` reserves.
    if (!Array.isArray(list)) {
      this.childList = [list, child];
      return;
    }
    list.push(child);
    const max = this.owner.retention.maxChildrenPerNode;
    // Prune in batches (slack of a quarter) so the amortised cost per insertion stays O(1). Nodes
    // a prune had to keep (still running) raise the threshold, so they are not rescanned per add.
    const limit = max + Math.max(16, max >> 2);
    if (list.length > limit && list.length > limit + (this.history?.unprunable ?? 0)) this.pruneFinished(list, max);
  }

  /** Puts `replacement` where `original` was and hangs `original` beneath it (shown as replaced). */
  replaceChild(original: TreeNode, replacement: TreeNode): boolean {
    const list = this.childArray();
    if (list === null) return false;
    const at = list.indexOf(original);
    const from = list.indexOf(replacement);
    if (at < 0) return false;
    if (from >= 0) list.splice(from, 1);
    list.splice(list.indexOf(original), 1, replacement);
    replacement.parent = this;
    replacement.addChild(original);
    return true;
  }

  removeChild(child: TreeNode): void {
    const list = this.childList;
    if (list === child) this.childList = null;
    else if (Array.isArray(list)) {
      const index = list.indexOf(child);
      if (index >= 0) list.splice(index, 1);
    }
    if (child.parent === this) child.parent = null;
  }

  /** The children as an array of this node's own (a single child moves into one), for edits in place. */
  private childArray(): TreeNode[] | null {
    const list = this.childList;
    if (list === null || Array.isArray(list)) return list;
    const array = [list];
    this.childList = array;
    return array;
  }

  /** The subtree as JSON-safe data. Built without recursion, so a deep chain cannot overflow the stack. */
  toJSON(): SerializedNode {
    const top = this.ownJSON();
    const stack: Array<{ node: TreeNode; out: SerializedNode }> = [{ node: this, out: top }];
    while (stack.length > 0) {
      const { node, out } = stack.pop() as { node: TreeNode; out: SerializedNode };
      for (const child of node.children) {
        const childOut = child.ownJSON();
        out.children.push(childOut);
        stack.push({ node: child, out: childOut });
      }
    }
    return top;
  }

  /** This node's fields (children empty, filled by `toJSON`), in the export format's order. */
  private ownJSON(): SerializedNode {
    // Exports list events in the order they happened; the live node keeps arrival order (relayed
    // events arrive late), and ids stay as they were given.
    const events = [...this.events];
    if (!isInTimeOrder(events)) events.sort(compareEventTime);
    const out: SerializedNode = {
      id: this.id,
      kind: this.kind,
      name: this.name,
      workflowId: this.workflowId,
      parentId: this.parent?.id ?? null,
      status: this.status,
      stateSnapshot: this.stateSnapshot,
      logs: [...this.logs],
      events,
      dropped: this.dropped,
      children: [],
    };
    if (this.history !== null) exportAttrs(this.history, out);
    if (this.startTime !== undefined) out.startTime = this.startTime;
    if (this.endTime !== undefined) out.endTime = this.endTime;
    const duration = this.duration;
    if (duration !== undefined) out.duration = duration;
    if (this.replayed) out.replayed = true;
    return out;
  }

  private ownStartEvent(): WorkflowEvent {
    return { id: this.startSeq, nodeId: this.id, workflowId: this.workflowId, timestamp: this.begin ?? 0, type: this.startType(), name: this.name };
  }

  /** The type of the start event a node of this kind keeps as its id. */
  private startType(): 'workflowStart' | 'stepStart' {
    return this.isWorkflowNode() ? 'workflowStart' : 'stepStart';
  }

  private ownEndEvent(): WorkflowEvent {
    const base = { id: this.endSeq, nodeId: this.id, workflowId: this.workflowId, timestamp: this.end ?? 0 };
    // A workflow's end has the fields in the order run-workflow.ts builds them.
    if (this.isWorkflowNode()) return { ...base, type: 'workflowEnd', name: this.name, status: this.status, duration: this.duration ?? 0 };
    const event: StepEndEvent = { ...base, type: 'stepEnd', name: this.name, status: this.status, attempts: this.attempts };
    const duration = this.duration;
    return duration === undefined ? event : { ...event, duration };
  }

  /**
   * Drops the oldest finished children beyond `max`, compacting the list in place (no new array).
   * A finished child workflow goes too (its parent workflow forgets it on its next attach); what
   * its subtree holds under keys with a `merge` (the tokens it spent) is kept on this node, so
   * rollups stay whole.
   */
  private pruneFinished(list: TreeNode[], max: number): void {
    let excess = list.length - max;
    const history = this.record();
    // The usual case: the oldest children are the finished ones. The rest is then copied into a
    // new list rather than moved down in this one: a list that lived long is in V8's old space, and
    // each move of a recent (young) node within it would pay the write barrier's slow path; the
    // new list is young, so the pushes until the next prune pay none either. Only when that prefix
    // was not enough is the rest compacted in place.
    let prefix = 0;
    while (excess > 0 && prefix < list.length && (list[prefix] as TreeNode).isPrunable()) {
      this.prune(list[prefix] as TreeNode, history);
      prefix += 1;
      excess -= 1;
    }
    let pruned = prefix;
    let kept = list;
    if (excess > 0) {
      let write = 0;
      for (let read = 0; read < list.length; read += 1) {
        const node = list[read] as TreeNode;
        if (read < prefix) continue;
        if (excess > 0 && node.isPrunable()) {
          excess -= 1;
          pruned += 1;
          this.prune(node, history);
          continue;
        }
        list[write] = node;
        write += 1;
      }
      list.length = write;
    } else if (prefix > 0) {
      kept = list.slice(prefix);
      history.children = kept;
    }
    history.prunedChildren += pruned;
    history.unprunable = Math.max(0, kept.length - max);
  }

  /** Marks `node` pruned, its subtree's key values folded into `history`. */
  private prune(node: TreeNode, history: NodeHistory): void {
    node.bits |= Bits.PRUNED;
    // A bare step (no history, no children), the usual case, holds no key values: skip the walk.
    if (node.more !== null) history.prunedAttrs = node.foldSubtreeInto(history.prunedAttrs);
  }

  /**
   * Finished, with nothing directly beneath it still running (a step that left a child workflow
   * going). Indexed, not a for-of over `children`: a prune runs rarely, so it may stay in a tier of
   * the engine that would make an iterator for each of the ~1,250 nodes it looks at.
   */
  private isPrunable(): boolean {
    // The status by its code: finished is completed, failed, cancelled or suspended (as isFinished).
    if (this.statusCode() < Bits.COMPLETED_CODE) return false;
    if (this.more === null) return true;
    const list = this.childList;
    if (list === null) return true;
    if (!Array.isArray(list)) return list.statusCode() !== Bits.RUNNING_CODE;
    for (let i = 0; i < list.length; i += 1) if ((list[i] as TreeNode).statusCode() === Bits.RUNNING_CODE) return false;
    return true;
  }

  private statusCode(): number {
    return (this.bits >>> Bits.STATUS_SHIFT) & Bits.FIELD_MASK;
  }

  /**
   * `into` with the values of keys with a `merge` anywhere in this subtree (pruned ones included)
   * folded in, straight into it: no map per pruned node (merges add, so the order is free). A
   * leaf, the usual pruned node (an agent call), needs no walk.
   */
  private foldSubtreeInto(into: AttrMap | null): AttrMap | null {
    if (this.childList === null) return this.foldOwnInto(into);
    const stack: TreeNode[] = [this];
    while (stack.length > 0) {
      const node = stack.pop() as TreeNode;
      into = node.foldOwnInto(into);
      const list = node.childList;
      if (list === null) continue;
      if (!Array.isArray(list)) stack.push(list);
      else for (let i = 0; i < list.length; i += 1) stack.push(list[i] as TreeNode);
    }
    return into;
  }

  private foldOwnInto(into: AttrMap | null): AttrMap | null {
    const history = this.history;
    if (history === null) return into;
    if (history.soleKey !== null) into = mergeOne(into, history.soleKey, history.soleValue);
    if (history.attrs !== null) into = mergeInto(into, history.attrs);
    if (history.prunedAttrs !== null) into = mergeInto(into, history.prunedAttrs);
    return into;
  }
}

// The layout of `bits`: timed, pruned, replayed, the kind (3 bits), the status (3 bits), whether
// the end and the start are kept as ticks, the start's era (12 bits), then a step's attempts (7
// bits). It stays under 2^30, a small integer even where V8 compresses pointers. A const enum:
// the build writes the numbers into the code, where module constants would be loaded and checked
// at run time on each use (every step reads and writes `bits` a dozen times).
const enum Bits {
  TIMED = 0b001,
  PRUNED = 0b010,
  REPLAYED = 0b100,
  KIND_SHIFT = 3,
  STATUS_SHIFT = 6,
  FIELD_MASK = 0b111,
  END_TICKS = 1 << 9,
  BEGIN_TICKS = 1 << 10,
  ERA_SHIFT = 11,
  /** `MAX_ERAS - 1` (checked below). */
  ERA_MASK = 4095,
  ATTEMPTS_SHIFT = 23,
  /** Everything below a step's attempts. */
  LOW_BITS = (1 << 23) - 1,
  /** Attempts beyond this (rare: a retry limit over 127) keep the step's end as an event: the integer stays small. */
  MAX_PACKED_ATTEMPTS = 127,
  /** The kind and status codes this file tests directly (see `kindCode`, `statusCode`). */
  WORKFLOW_KIND = 0 << 3,
  RUNNING_CODE = 1,
  COMPLETED_CODE = 2,
  CANCELLED_STATUS = 4 << 6,
}

if (Bits.ERA_MASK !== MAX_ERAS - 1) throw new Error('tree-node: the era field does not fit MAX_ERAS');

/** Attempts a step's end kept as its id can hold in `bits`. */
function packableAttempts(attempts: number): boolean {
  return Number.isInteger(attempts) && attempts >= 0 && attempts <= Bits.MAX_PACKED_ATTEMPTS;
}

const KINDS: readonly NodeKind[] = ['workflow', 'step', 'task', 'agentPrompt', 'toolCall', 'mcpCall', 'reflection'];
const STATUSES: readonly WorkflowStatus[] = ['idle', 'running', 'completed', 'failed', 'cancelled', 'suspended'];

/** The id tag of each kind, by its code: a node's id is made without a map lookup. */
const ID_TAGS: readonly IdTag[] = KINDS.map(idTag);

// A switch, not a search or a map: a node is made, and its status set twice, for every step.
function kindCode(kind: NodeKind): number {
  switch (kind) {
    case 'workflow':
      return 0;
    case 'step':
      return 1;
    case 'task':
      return 2;
    case 'agentPrompt':
      return 3;
    case 'toolCall':
      return 4;
    case 'mcpCall':
      return 5;
    case 'reflection':
      return 6;
    default:
      // A kind this table lacks would read back as another: fail loudly instead.
      throw new TypeError(`Unknown node kind ${String(kind)}`);
  }
}

function statusCode(status: WorkflowStatus): number {
  switch (status) {
    case 'idle':
      return 0;
    case 'running':
      return 1;
    case 'completed':
      return 2;
    case 'failed':
      return 3;
    case 'cancelled':
      return 4;
    case 'suspended':
      return 5;
    default:
      throw new TypeError(`Unknown node status ${String(status)}`);
  }
}

type AttrMap = Map<NodeKey<unknown>, unknown>;

/** Values of exported keys, under their names, in the order they were set. */
function exportAttrs(history: NodeHistory, out: SerializedNode): void {
  const target = out as unknown as Record<string, unknown>;
  const sole = history.soleKey;
  if (sole?.exportAs !== undefined) target[sole.exportAs] = exported(sole, history.soleValue);
  if (history.attrs === null) return;
  for (const [key, value] of history.attrs) if (key.exportAs !== undefined) target[key.exportAs] = exported(key, value);
}

/** What a key's value is exported as: its `exportValue` of it (a live ledger's snapshot), or the value. */
function exported(key: NodeKey<unknown>, value: unknown): unknown {
  return key.exportValue === undefined ? value : key.exportValue(value);
}

/** `into` with every mergeable value of `from` folded in (created when needed). */
function mergeInto(into: AttrMap | null, from: AttrMap): AttrMap | null {
  for (const [key, value] of from) into = mergeOne(into, key, value);
  return into;
}

/** `into` with `value` of `key` folded in when the key merges (created when needed). */
function mergeOne(into: AttrMap | null, key: NodeKey<unknown>, value: unknown): AttrMap | null {
  const merge = key.merge;
  if (merge === undefined) return into;
  into ??= new Map();
  const kept = into.get(key);
  into.set(key, kept === undefined ? value : merge(kept, value));
  return into;
}

/** What a node has beyond its own start and end, made on first use: most nodes never need one. */
interface NodeHistory {
  /** The node's children (see `TreeNode.more`). */
  children: TreeNode | TreeNode[] | null;
  state: StateSnapshot | null;
  /** The first feature value set on the node, by its key (`getAttr`/`setAttr`). */
  soleKey: NodeKey<unknown> | null;
  soleValue: unknown;
  /** Further features' values by key, once a second key is set. */
  attrs: AttrMap | null;
  firstEvent: WorkflowEvent | null;
  secondEvent: WorkflowEvent | null;
  /** The newest events after those two: the third itself until a fourth comes (see `keepLater`). */
  laterEvents: EventRing | WorkflowEvent | null;
  logs: RingBuffer<LogEntry> | null;
  prunedChildren: number;
  /** What keys with a `merge` held in pruned children's subtrees. */
  prunedAttrs: AttrMap | null;
  /** Children beyond the limit that the last prune had to keep (still running). */
  unprunable: number;
}

