import type { WorkflowError } from '../errors/workflow-error.js';
import type { EventPayload, WorkflowEvent } from '../types/events.js';
import type { WorkflowNode } from '../types/node.js';
import type { StateSnapshot } from '../types/serialized.js';
import type { WorkflowStatus } from '../types/status.js';
import type { Clock } from '../util/clock.js';
import type { WorkflowLogger } from './logger.js';
import type { RetentionOptions } from './retention.js';
import type { RunOutcome } from './run-outcome.js';
import type { TreeNode } from './tree-node.js';
import type { WorkflowConfig } from './workflow-config.js';

/**
 * The part of a workflow that the runners, scope, fan-out, secrets and the context work with.
 * `Workflow` (the only implementation) implements it; those modules import this file instead of
 * the class, so core has no import cycle (decision 0030). A call through this type is the same
 * property access on the same object as through the class: the hot path pays nothing for it.
 * Members that are internal on `Workflow` are internal here too, so the published types (which
 * leave internal members out) still see `Workflow` implement it.
 */
export interface WorkflowRuntime {
  readonly id: string;
  readonly name: string;
  /** @internal */ readonly config: Readonly<WorkflowConfig>;
  /** @internal */ readonly treeNode: TreeNode;
  readonly node: WorkflowNode;
  readonly parent: WorkflowRuntime | null;
  readonly root: WorkflowRuntime;
  readonly status: WorkflowStatus;
  readonly logger: WorkflowLogger;
  readonly signal: AbortSignal;
  readonly isCancelled: boolean;
  /** @internal */ readonly cancellation: string | undefined;
  /** @internal */ readonly clock: Clock;
  /** @internal */ readonly retention: RetentionOptions;
  /** @internal */ lastOutcome: RunOutcome<unknown> | undefined;
  run(...args: unknown[]): Promise<unknown>;
  cancel(reason?: string): void;
  attachChild(child: WorkflowRuntime): void;
  snapshotState(): StateSnapshot;
  /** @internal */ emit(node: TreeNode, payload: EventPayload, timestamp?: number): WorkflowEvent;
  /** @internal */ dispatch(node: TreeNode, built: WorkflowEvent, ownStep?: boolean): WorkflowEvent;
  /** @internal */ mountPoint(): TreeNode;
  /** @internal */ errorDetails(node: TreeNode, cause: unknown): ConstructorParameters<typeof WorkflowError>[1];
  /** @internal */ throwIfCancelled(node: TreeNode): void;
  /** @internal */ beginWork(): void;
  /** @internal */ endWork(): void;
  /** @internal */ whenIdle(): Promise<void>;
}

// Set on `Workflow.prototype`: `isWorkflow` is `instanceof Workflow` without importing the class.
const WORKFLOW_BRAND = Symbol('groundswell.workflow');

/** Marks `prototype` (the `Workflow` class's) so its instances pass `isWorkflow`. */
export function brandWorkflowPrototype(prototype: object): void {
  Object.defineProperty(prototype, WORKFLOW_BRAND, { value: true });
}

/** True for a `Workflow` (or subclass) instance: what `instanceof Workflow` answers. */
export function isWorkflow(value: unknown): value is WorkflowRuntime {
  return typeof value === 'object' && value !== null && (value as { [WORKFLOW_BRAND]?: unknown })[WORKFLOW_BRAND] === true;
}
