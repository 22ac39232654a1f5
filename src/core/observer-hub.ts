import type { WorkflowEvent } from '../types/events.js';
import type { LogEntry } from '../types/logging.js';
import type { WorkflowNode } from '../types/node.js';
import type { WorkflowObserver } from '../types/observer.js';

type Callback = keyof WorkflowObserver;

/**
 * The observers of one root workflow. Each call is isolated: an observer that throws neither
 * breaks the run nor stops the others. The failure goes to `report` once; a throw while that
 * report is being delivered is swallowed, so a broken observer cannot recurse.
 */
export class ObserverHub {
  private observers: readonly WorkflowObserver[] = [];
  private reporting = false;

  constructor(private readonly report: (callback: Callback, error: unknown) => void) {}

  get size(): number {
    return this.observers.length;
  }

  has(observer: WorkflowObserver): boolean {
    return this.observers.includes(observer);
  }

  add(observer: WorkflowObserver): void {
    if (!this.has(observer)) this.observers = [...this.observers, observer];
  }

  remove(observer: WorkflowObserver): void {
    this.observers = this.observers.filter((o) => o !== observer);
  }

  // Each loop calls its method directly (no dynamic dispatch by name): event() runs twice per step.
  log(entry: LogEntry): void {
    for (const observer of this.observers) {
      if (observer.onLog === undefined) continue;
      try {
        observer.onLog(entry);
      } catch (error) {
        this.failed('onLog', error);
      }
    }
  }

  event(event: WorkflowEvent): void {
    for (const observer of this.observers) {
      if (observer.onEvent === undefined) continue;
      try {
        observer.onEvent(event);
      } catch (error) {
        this.failed('onEvent', error);
      }
    }
  }

  stateUpdated(node: WorkflowNode): void {
    for (const observer of this.observers) {
      if (observer.onStateUpdated === undefined) continue;
      try {
        observer.onStateUpdated(node);
      } catch (error) {
        this.failed('onStateUpdated', error);
      }
    }
  }

  treeChanged(root: WorkflowNode): void {
    for (const observer of this.observers) {
      if (observer.onTreeChanged === undefined) continue;
      try {
        observer.onTreeChanged(root);
      } catch (error) {
        this.failed('onTreeChanged', error);
      }
    }
  }

  private failed(callback: Callback, error: unknown): void {
    if (this.reporting) return;
    this.reporting = true;
    try {
      this.report(callback, error);
    } catch {
      // Reporting must never fail the run; the original failure is already recorded.
    } finally {
      this.reporting = false;
    }
  }
}
