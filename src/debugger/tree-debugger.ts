import { Workflow } from '../core/workflow.js';
import { UsageError } from '../errors/groundswell-error.js';
import type { WorkflowEvent } from '../types/events.js';
import type { WorkflowNode } from '../types/node.js';
import type { RunExport } from '../types/serialized.js';
import { describeValue } from '../util/describe.js';
import { Observable } from '../util/observable.js';
import { compareEventTime, isInTimeOrder } from '../util/time-order.js';
import { findNode, walkTree } from '../util/tree-walk.js';
import { LoadedNode } from './loaded-node.js';
import { renderLogs } from './log-string.js';
import { exportRun, parseRunExport } from './run-export.js';
import { computeStats, type TreeStats } from './stats.js';
import { renderTree, type TreeStringOptions } from './tree-string.js';

/**
 * Views a workflow tree: live (events stream in as they reach the workflow's root: arrival
 * order) or loaded from an export (events are replayed to each subscriber in the order they
 * happened, timestamp then id, then complete).
 */
export class WorkflowTreeDebugger {
  readonly events: Observable<WorkflowEvent>;
  private readonly root: WorkflowNode;

  /** A live workflow, or an exported run (object or JSON text) to load and replay. */
  constructor(source: Workflow | RunExport | string) {
    if (source instanceof Workflow) {
      this.root = source.node;
      this.events = new Observable<WorkflowEvent>((observer) =>
        source.root.addObserver({ onEvent: (event) => observer.next(event) }),
      );
      return;
    }
    if (typeof source !== 'string' && (typeof source !== 'object' || source === null)) {
      throw new UsageError(`WorkflowTreeDebugger needs a Workflow or a run export, got ${describeValue(source)}.`);
    }
    const root = LoadedNode.load(parseRunExport(source).root);
    const recorded = collectEvents(root);
    this.root = root;
    this.events = new Observable<WorkflowEvent>((observer) => {
      for (const event of recorded) observer.next(event);
      observer.complete?.();
    });
  }

  /**
   * Same as `new WorkflowTreeDebugger(exported)`. `events` replays the whole run in the order its
   * events happened (timestamp, then id), and each loaded node's `events` are in that order too,
   * even for an export written in another order. The export is not changed.
   */
  static fromJSON(input: RunExport | string): WorkflowTreeDebugger {
    return new WorkflowTreeDebugger(input);
  }

  getTree(): WorkflowNode {
    return this.root;
  }

  getNode(id: string): WorkflowNode | undefined {
    return findNode(this.root, id);
  }

  toTreeString(node: WorkflowNode = this.root, options?: TreeStringOptions): string {
    return renderTree(node, options);
  }

  toLogString(node: WorkflowNode = this.root): string {
    return renderLogs(node);
  }

  getStats(): TreeStats {
    return computeStats(this.root);
  }

  /** The viewed subtree as a run export, loadable with `fromJSON`. */
  toJSON(): RunExport {
    return exportRun(this.root);
  }
}

/**
 * All recorded events in the order they happened (timestamp, then id). Not by id alone: ids say
 * when an event reached this process, and events relayed from workers arrive late.
 */
function collectEvents(root: WorkflowNode): WorkflowEvent[] {
  const events: WorkflowEvent[] = [];
  for (const node of walkTree(root)) {
    for (const event of node.events) events.push(event);
  }
  return isInTimeOrder(events) ? events : events.sort(compareEventTime);
}
