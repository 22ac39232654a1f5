import { AsyncLocalStorage } from 'node:async_hooks';
import type { DbosHandleLike, DbosLike } from 'groundswell/dbos';

export interface FakeDbos extends DbosLike {
  /** The names of the DBOS steps run, in start order. */
  readonly steps: string[];
  /** Outputs to answer steps with instead of running them (as DBOS does on recovery), by step name. */
  readonly recorded: Map<string, unknown>;
  /** What the steps that ran returned, as DBOS would record it, by step name (the last one's). */
  readonly outputs: Map<string, unknown>;
  /** The arguments each workflow was started with, by workflow id. */
  readonly started: Map<string, unknown[]>;
}

/** An in-process stand-in for DBOS's workflow and step contexts: enough to drive groundswell/dbos without PostgreSQL. */
export function fakeDbos(): FakeDbos {
  const context = new AsyncLocalStorage<{ id: string; inStep: boolean }>();
  const steps: string[] = [];
  const recorded = new Map<string, unknown>();
  const outputs = new Map<string, unknown>();
  const started = new Map<string, unknown[]>();
  const runs = new Map<string, Promise<unknown>>();
  return {
    steps,
    recorded,
    outputs,
    started,
    get workflowID() {
      return context.getStore()?.id;
    },
    isInWorkflow: () => context.getStore()?.inStep === false,
    registerWorkflow: (func) => func,
    runStep<R>(func: () => Promise<R>, config?: { name?: string }): Promise<R> {
      const store = context.getStore();
      if (store === undefined || store.inStep) return func();
      const name = config?.name ?? func.name;
      steps.push(name);
      if (recorded.has(name)) return Promise.resolve(recorded.get(name) as R);
      return context.run({ ...store, inStep: true }, func).then((output) => {
        outputs.set(name, output);
        return output;
      });
    },
    startWorkflow<Args extends unknown[], R>(target: (...args: Args) => Promise<R>, params?: { workflowID?: string }) {
      return async (...args: Args): Promise<DbosHandleLike<R>> => {
        const workflowID = params?.workflowID ?? 'fake-workflow';
        started.set(workflowID, args);
        const result = context.run({ id: workflowID, inStep: false }, () => target(...args));
        result.catch(() => undefined);
        runs.set(workflowID, result);
        return { workflowID, getResult: () => result };
      };
    },
    getWorkflowStatus: async (workflowID) => (runs.has(workflowID) ? { status: 'PENDING' } : null),
    retrieveWorkflow: <R>(workflowID: string) => ({ workflowID, getResult: () => runs.get(workflowID) as Promise<R> }),
    cancelWorkflow: async () => undefined,
    listWorkflows: async () => [],
    writeStream: async () => undefined,
    closeStream: async () => undefined,
    // eslint-disable-next-line require-yield
    async *readStream<T>(): AsyncGenerator<T, void, unknown> {
      return;
    },
  };
}
