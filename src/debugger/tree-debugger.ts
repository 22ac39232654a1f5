import { Workflow } from '../core/workflow.js';
import { UsageError } from '../errors/groundswell-error.js';
import type { WorkflowEvent } from '../types/events.js';
import type { WorkflowNode } from '../types/node.js';
import type { RunExport } from '../types/serialized.js';
import { describeValue } from '../util/describe.js';
import { Observable } from '../util/observable.js';
import { findNode, walkTree } from '../util/tree-walk.js';
import { LoadedNode } from './loaded-node.js';
import { renderLogs } from './log-string.js';
import { exportRun, parseRunExport } from './run-export.js';
import { computeStats, type TreeStats } from './stats.js';
import { renderTree, type TreeStringOptions } from './tree-string.js';

/**
 * Views a workflow tree: live (events stream in as they happen, from the workflow's root) or
 * loaded from an export (events are replayed in order to each subscriber, then complete).
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

  /** Same as `new WorkflowTreeDebugger(exported)`. */
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

/** All recorded events in the order they were emitted. */
function collectEvents(root: WorkflowNode): WorkflowEvent[] {
  const events: WorkflowEvent[] = [];
  for (const node of walkTree(root)) events.push(...node.events);
  return events.sort((a, b) => a.id - b.id);
}
