import type { WorkflowEvent } from '../types/events.js';
import type { LogEntry } from '../types/logging.js';
import type { WorkflowNode } from '../types/node.js';
import type { WorkflowObserver } from '../types/observer.js';

type Callback = keyof WorkflowObserver;

/**
 * The observers of one root workflow. Each call is isolated: an observer that throws (or returns a
 * promise that rejects) neither breaks the run nor stops the others. The failure goes to `report` once; a throw while that
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
        const returned: unknown = observer.onLog(entry);
        if (returned !== undefined) this.watch('onLog', returned);
      } catch (error) {
        this.failed('onLog', error);
      }
    }
  }

  event(event: WorkflowEvent, node: WorkflowNode): void {
    // Indexed over the list as it is now (add and remove replace it, as for-of would see).
    const observers = this.observers;
    for (let i = 0; i < observers.length; i += 1) {
      const observer = observers[i] as WorkflowObserver;
      if (observer.onEvent === undefined) continue;
      try {
        const returned: unknown = observer.onEvent(event, node);
        if (returned !== undefined) this.watch('onEvent', returned);
      } catch (error) {
        this.failed('onEvent', error);
      }
    }
  }

  stateUpdated(node: WorkflowNode): void {
    for (const observer of this.observers) {
      if (observer.onStateUpdated === undefined) continue;
      try {
        const returned: unknown = observer.onStateUpdated(node);
        if (returned !== undefined) this.watch('onStateUpdated', returned);
      } catch (error) {
        this.failed('onStateUpdated', error);
      }
    }
  }

  treeChanged(root: WorkflowNode): void {
    for (const observer of this.observers) {
      if (observer.onTreeChanged === undefined) continue;
      try {
        const returned: unknown = observer.onTreeChanged(root);
        if (returned !== undefined) this.watch('onTreeChanged', returned);
      } catch (error) {
        this.failed('onTreeChanged', error);
      }
    }
  }

  /** An async observer's rejection counts as a throw, reported when it arrives. */
  private watch(callback: Callback, returned: unknown): void {
    let then: unknown;
    try {
      then = (returned as { then?: unknown } | null)?.then;
    } catch (error) {
      this.failed(callback, error);
      return;
    }
    if (typeof then !== 'function') return;
    try {
      (then as (ok: () => void, fail: (error: unknown) => void) => unknown).call(
        returned,
        () => undefined,
        (error: unknown) => this.failed(callback, error),
      );
    } catch (error) {
      this.failed(callback, error);
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
