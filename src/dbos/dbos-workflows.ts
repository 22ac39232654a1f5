import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { UsageError } from '../errors/groundswell-error.js';
import { setCallJournalLookup, type CallJournal } from '../agent/call-journal.js';
import { createWorkflow } from '../core/create-workflow.js';
import { journalOf, setRunJournal } from '../core/run-journal.js';
import { currentScope, type Scope } from '../core/scope.js';
import type { TreeNode } from '../core/tree-node.js';
import type { Workflow } from '../core/workflow.js';
import { isWorkflow } from '../core/workflow-runtime.js';
import type { SerializedNode } from '../types/serialized.js';
import type { DbosHandleLike, DbosLike, DbosQueueLike } from './dbos-like.js';
import { DbosJournal } from './dbos-journal.js';
import { graftTree } from './graft-tree.js';
import { RelayReader } from './relay-reader.js';
import { RelayIds } from './relay-ids.js';
import { RelayWriter, type RelayBatch, type RelayItem } from './relay-writer.js';

/** Builds a new root workflow from JSON input: how any process makes the same workflow. @public */
export type DbosWorkflowFactory = (input: never) => Workflow<unknown>;
/** The input a factory takes. @public */
export type DbosFactoryInput<F> = F extends (input: infer I) => unknown ? I : never;
/** The result of the workflow a factory builds. @public */
export type DbosFactoryResult<F> = F extends (input: never) => Workflow<infer T> ? T : never;

export interface DbosRunOptions {
  /** The DBOS workflow id (default: a new one). Running an id again returns its recorded result. */
  readonly workflowID?: string;
  /** Called with the root workflow before it runs in this process: add observers, keep it for the debugger. */
  readonly onWorkflow?: (workflow: Workflow<unknown>) => void;
}

export interface DbosWorkflowsOptions {
  /** The name the DBOS workflow function is registered under (default "groundswell"). */
  readonly name?: string;
  /**
   * Called with every workflow this process runs for DBOS (roots, children, recovered runs)
   * before it runs: observe a worker's runs, or a run DBOS recovered here.
   */
  readonly onWorkflow?: (workflow: Workflow<unknown>, run: { readonly name: string; readonly workflowID: string }) => void;
}

/** The workflows every process of an application registers with DBOS before `DBOS.launch()`. */
export interface DbosWorkflows<F extends Record<string, DbosWorkflowFactory>> {
  /** Runs `name` as a DBOS workflow (a root) in this process and returns its result. */
  run<K extends keyof F & string>(name: K, input: DbosFactoryInput<F[K]>, options?: DbosRunOptions): Promise<DbosFactoryResult<F[K]>>;
}

const RESULT_POLL_MS = 50;

interface ChildOutcome {
  readonly value: unknown;
  /**
   * The child's tree and the events and logs not relayed while it ran, as JSON text: DBOS
   * serializes a string without walking it (the tree was most of a worker's serialization time).
   */
  readonly trail: string;
}

interface ChildTrail {
  readonly tree: SerializedNode;
  readonly rest: RelayBatch;
}

/**
 * Registers groundswell workflows with DBOS (call it in every process, launcher and workers,
 * before `DBOS.launch()`): a run becomes a DBOS workflow whose steps and agent calls are DBOS
 * steps, and `children()` spreads child workflows over the processes that listen to a queue.
 */
export function dbosWorkflows<F extends Record<string, DbosWorkflowFactory>>(dbos: DbosLike, factories: F, options: DbosWorkflowsOptions = {}): DbosWorkflows<F> {
  setCallJournalLookup(dbosCallJournal);
  // Made here, outside any DBOS workflow: its scope is where children are enqueued and followed,
  // so those calls take no function ids of the run (their ids make them idempotent instead).
  const outside = new AsyncResource('groundswell.dbos');
  const escape = <R>(fn: () => Promise<R>): Promise<R> => outside.runInAsyncScope(fn);
  const starting = new Map<string, (workflow: Workflow<unknown>) => void>();

  const registered = dbos.registerWorkflow(
    async (name: string, input: unknown, child: boolean): Promise<unknown> => {
      const workflow = build(factories, name, input);
      const workflowID = dbos.workflowID as string;
      const relay = child ? new RelayWriter(dbos, workflow) : undefined;
      setRunJournal(workflow, new DbosJournal(dbos, workflowID, relay, launchChildren));
      let rest: RelayItem[] | undefined;
      options.onWorkflow?.(workflow, { name, workflowID });
      starting.get(workflowID)?.(workflow);
      let value: unknown;
      try {
        value = await workflow.run();
      } finally {
        setRunJournal(workflow, undefined);
        // In the workflow's own context: the last operation of every attempt, so its id never shifts.
        rest = await relay?.close();
      }
      if (relay === undefined) return value;
      const trail: ChildTrail = { tree: workflow.treeNode.toJSON(), rest: { root: workflow.id, items: rest ?? [] } };
      return { value, trail: JSON.stringify(trail) } satisfies ChildOutcome;
    },
    { name: options.name ?? 'groundswell' },
  );

  async function follow(mirror: Workflow, handle: DbosHandleLike<unknown>): Promise<unknown> {
    // The stream ends when the child closes it (its last step) or ends: only then is its result
    // asked for, at a short interval, instead of polling each child's status all along.
    const ids = new RelayIds(mirror.id);
    const relay = new RelayReader(mirror, ids);
    await escape(() => relay.follow(dbos, handle.workflowID)).catch(() => undefined);
    const outcome = (await escape(() => handle.getResult({ pollingIntervalMs: RESULT_POLL_MS }))) as ChildOutcome;
    const trail = JSON.parse(outcome.trail) as ChildTrail;
    relay.deliver(trail.rest);
    graftTree(trail.tree, mirror, ids);
    return outcome.value;
  }

  async function launchChildren(queue: DbosQueueLike, name: string, inputs: readonly unknown[]): Promise<unknown[]> {
    const scope = currentScope() as Scope;
    const journal = journalOf(scope.workflow) as DbosJournal;
    const path = mountPath(scope.node as TreeNode);
    const launch = journal.nextLaunch(path);
    const handles = await Promise.all(
      inputs.map((input, index) =>
        escape(() => dbos.startWorkflow(registered, { workflowID: journal.childId(path, launch, name, index), queueName: queue.name })(name, input, true)),
      ),
    );
    const mirrors = handles.map((handle) => {
      const mirror: Workflow<unknown> = createWorkflow<unknown>({ name }, () => follow(mirror, handle));
      return mirror;
    });
    // Each mirror mounts under the running step; all settle before the first failure is thrown.
    const settled = await Promise.allSettled(mirrors.map((mirror) => mirror.run()));
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value);
  }

  return {
    async run(name, input, runOptions = {}) {
      const workflowID = runOptions.workflowID ?? `gs-${randomUUID()}`;
      if (runOptions.onWorkflow !== undefined) starting.set(workflowID, runOptions.onWorkflow);
      try {
        const handle = await dbos.startWorkflow(registered, { workflowID })(name, input, false);
        return (await handle.getResult()) as DbosFactoryResult<F[typeof name]>;
      } finally {
        starting.delete(workflowID);
      }
    },
  };
}

function build(factories: Record<string, DbosWorkflowFactory>, name: string, input: unknown): Workflow<unknown> {
  const factory = Object.hasOwn(factories, name) ? factories[name] : undefined;
  if (typeof factory !== 'function') {
    throw new UsageError(`dbosWorkflows: no workflow "${name}" (known: ${Object.keys(factories).join(', ')}); every process must register the same ones.`);
  }
  const workflow = (factory as (input: unknown) => unknown)(input);
  if (!isWorkflow(workflow) || workflow.parent !== null) {
    throw new UsageError(`dbosWorkflows: the factory of "${name}" must return a new root workflow.`);
  }
  if (workflow.config.durable !== undefined) {
    throw new UsageError(
      `Workflow "${workflow.name}" has a \`durable\` option, but a DBOS run is journaled by DBOS's system database: one journal per run. Remove \`durable\` (or run it without DBOS).`,
    );
  }
  return workflow as Workflow<unknown>;
}

function mountPath(node: TreeNode): string {
  const names: string[] = [];
  for (let at: TreeNode | null = node; at !== null; at = at.parent) names.push(at.name);
  return names.reverse().join('/');
}

function dbosCallJournal(workflow: Workflow): CallJournal | undefined {
  const journal = journalOf(workflow);
  return journal instanceof DbosJournal ? journal : undefined;
}
