import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { NO_AMOUNTS, type BudgetAmounts } from '../../budgets/budget-amounts.js';
import type { BudgetLedger } from '../../budgets/budget-ledger.js';
import { amountsOf, headroomFrom, headroomOf, shareOf, type Headroom } from '../../budgets/headroom.js';
import { reserve, type Reservation } from '../../budgets/reservation.js';
import { ledgersAbove } from '../../budgets/node-budgets.js';
import { UsageError } from '../../errors/groundswell-error.js';
import { setCallJournalLookup, type CallJournal } from '../../agent/call-journal.js';
import { createWorkflow } from '../../core/create-workflow.js';
import { journalOf, setRunJournal } from '../../core/run-journal.js';
import { currentScope, type Scope } from '../../core/scope.js';
import type { TreeNode } from '../../core/tree-node.js';
import type { Workflow } from '../../core/workflow.js';
import { isWorkflow } from '../../core/workflow-runtime.js';
import { cancelRun } from './cancel-run.js';
import { DbosChildFailedError } from './child-failure.js';
import type { DbosLike, DbosQueueLike } from './dbos-like.js';
import { DbosJournal } from './dbos-journal.js';
import { followRun } from './follow-run.js';
import { runWithinHeadroom } from './launcher-headroom.js';
import { BudgetAccounts, type DbosBudgetAccountsOptions } from './budget-accounts.js';
import { RelayWriter, type RelayItem } from './relay-writer.js';
import type { RunOutcome, RunTrail } from './run-trail.js';

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
  /**
   * A database every process reaches (DBOS's own will do): the children of one `dbosChildren`
   * under a budget then reserve each request on one account there, holding what the launcher's
   * budgets had left, instead of each getting an even share of it. Give the same in every process.
   */
  readonly budgetAccounts?: DbosBudgetAccountsOptions;
}

/** The workflows every process of an application registers with DBOS before `DBOS.launch()`. */
export interface DbosWorkflows<F extends Record<string, DbosWorkflowFactory>> {
  /**
   * Runs `name` as a DBOS workflow (a root) in this process and returns its result. With the
   * `workflowID` of a run that exists (a launcher that died and came back), runs nothing new: the
   * workflow `onWorkflow` gets stands for that run wherever DBOS runs it, its observers get the
   * run's events from its start and on, and its tree is the run's once it ends.
   */
  run<K extends keyof F & string>(name: K, input: DbosFactoryInput<F[K]>, options?: DbosRunOptions): Promise<DbosFactoryResult<F[K]>>;
  /** Cancels the run `workflowID` and every child it queued (those still queued or running). */
  cancel(workflowID: string): Promise<void>;
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
  const accounts = options.budgetAccounts === undefined ? undefined : new BudgetAccounts(options.budgetAccounts);

  const registered = dbos.registerWorkflow(
    // `child`: kept in the recorded input, so runs started before still replay. `headroom`: what
    // the launcher's budgets had left when it started the child (absent when none limits it).
    // `account`: the shared budget account the child reserves on (absent: its headroom is its own).
    async (name: string, input: unknown, child: boolean, headroom?: unknown, account?: unknown): Promise<RunOutcome> => {
      const workflow = build(factories, name, input);
      const workflowID = dbos.workflowID as string;
      // Every run relays: a child to its launcher, a root to a launcher that comes back.
      const relay = new RelayWriter(dbos, workflow);
      setRunJournal(workflow, new DbosJournal(dbos, workflowID, relay, launchChildren));
      let rest: RelayItem[] = [];
      options.onWorkflow?.(workflow, { name, workflowID });
      starting.get(workflowID)?.(workflow);
      let value: unknown;
      let failure: { error: unknown } | undefined;
      try {
        const shared = typeof account === 'string' && accounts !== undefined ? accounts.account(account) : undefined;
        value = await runWithinHeadroom(workflow, headroomFrom(headroom), shared);
      } catch (error) {
        failure = { error };
      } finally {
        setRunJournal(workflow, undefined);
        // In the workflow's own context: the last operation of every attempt, so its id never shifts.
        rest = await relay.close();
      }
      const trail = JSON.stringify({ tree: workflow.treeNode.toJSON(), rest: { root: workflow.id, items: rest } } satisfies RunTrail);
      // A failed child's launcher still grafts its tree and counts what it spent.
      if (failure !== undefined) throw child ? new DbosChildFailedError(name, workflowID, trail, failure.error) : failure.error;
      return { value, trail };
    },
    { name: options.name ?? 'groundswell' },
  );

  const follow = (mirror: Workflow, workflowID: string): Promise<unknown> => followRun(dbos, escape, mirror, workflowID);

  async function launchChildren(
    queue: DbosQueueLike,
    workflow: string | ((input: never) => unknown),
    inputs: readonly unknown[],
    share: 'split' | 'whole',
  ): Promise<unknown[]> {
    const name = registeredName(factories, workflow);
    const scope = currentScope() as Scope;
    const journal = journalOf(scope.workflow) as DbosJournal;
    const at = scope.node as TreeNode;
    const path = mountPath(at);
    const launch = journal.nextLaunch(path);
    // This process cannot reserve on the worker's requests: each child runs there under a budget
    // of what the budgets above have left now, an even share of it held here until the child ends
    // ('split'), or all of it ('whole').
    // With a shared account, all of it goes to one row every child reserves on, held here once
    // until the last child ends.
    const ledgers = ledgersAbove(at);
    const left = headroomOf(ledgers);
    const shared = left !== undefined && share === 'split' && accounts !== undefined && inputs.length > 0;
    const headroom = left === undefined || share === 'whole' || shared ? left : shareOf(left, Math.max(1, inputs.length));
    const account = shared ? `${journal.childId(path, launch, name, 0)}/budget` : undefined;
    // Idempotent: a launcher DBOS recovered finds the row its children already reserve on.
    if (account !== undefined) await (accounts as BudgetAccounts).open(account, headroom as Headroom);
    const holds =
      left === undefined || share === 'whole' ? undefined : holdShares(ledgers, amountsOf(headroom as Headroom), shared ? 1 : inputs.length, name);
    const release = (): void => holds?.forEach((hold) => hold.settle(NO_AMOUNTS));
    // When starting fails the launch fails: the shares go back.
    const handles = await Promise.all(
      inputs.map((input, index) =>
        escape(() => {
          const start = dbos.startWorkflow(registered, { workflowID: journal.childId(path, launch, name, index), queueName: queue.name });
          // Without headroom the input stays as runs started before recorded it.
          if (headroom === undefined) return start(name, input, true);
          return account === undefined ? start(name, input, true, headroom) : start(name, input, true, headroom, account);
        }),
      ),
    ).catch((error: unknown) => {
      release();
      throw error;
    });
    const mirrors = handles.map((handle, index) => {
      // Its share is released when it ends: what it spent was booked when its tree was grafted.
      // The one hold of a shared account is released after the fan-out instead.
      const hold = shared ? undefined : holds?.[index];
      const mirror: Workflow<unknown> = createWorkflow<unknown>({ name }, () =>
        hold === undefined ? follow(mirror, handle.workflowID) : follow(mirror, handle.workflowID).finally(() => hold.settle(NO_AMOUNTS)),
      );
      return mirror;
    });
    // Each mirror mounts under the running step; all settle before the first failure is thrown.
    const settled = await Promise.allSettled(mirrors.map((mirror) => mirror.run()));
    if (shared) release();
    const failed = settled.find((outcome) => outcome.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    return settled.map((outcome) => (outcome as PromiseFulfilledResult<unknown>).value);
  }

  return {
    async run(name, input, runOptions = {}) {
      type Result = DbosFactoryResult<F[typeof name]>;
      const workflowID = runOptions.workflowID ?? `gs-${randomUUID()}`;
      if (runOptions.workflowID !== undefined && (await dbos.getWorkflowStatus(workflowID)) !== null) {
        // The run exists (its launcher died, or it ended): follow it from the start of its stream.
        const mirror: Workflow<unknown> = createWorkflow<unknown>({ name }, () => follow(mirror, workflowID));
        runOptions.onWorkflow?.(mirror);
        return (await mirror.run()) as Result;
      }
      if (runOptions.onWorkflow !== undefined) starting.set(workflowID, runOptions.onWorkflow);
      try {
        const handle = await dbos.startWorkflow(registered, { workflowID })(name, input, false);
        return (await handle.getResult()).value as Result;
      } finally {
        starting.delete(workflowID);
      }
    },
    cancel: (workflowID) => cancelRun(dbos, workflowID),
  };
}

/** The registry's name of a child, given by name or by its factory. */
function registeredName(factories: Record<string, DbosWorkflowFactory>, workflow: string | ((input: never) => unknown)): string {
  if (typeof workflow === 'string') return workflow;
  const name = Object.keys(factories).find((key) => factories[key] === workflow);
  if (name === undefined) {
    throw new UsageError(`dbosChildren: the factory ${workflow.name || '(anonymous)'} is not in the dbosWorkflows registry (known: ${Object.keys(factories).join(', ')}).`);
  }
  return name;
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

/** One hold of `share` per child on `ledgers`, all or none (a refusal releases those taken). */
function holdShares(ledgers: readonly BudgetLedger[], share: BudgetAmounts, children: number, name: string): Reservation[] {
  const holds: Reservation[] = [];
  try {
    for (let i = 0; i < children; i += 1) holds.push(reserve(ledgers, share, `DBOS child "${name}"`));
  } catch (error) {
    for (const hold of holds) hold.settle(NO_AMOUNTS);
    throw error;
  }
  return holds;
}
