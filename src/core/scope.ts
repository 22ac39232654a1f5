import { AsyncLocalStorage } from 'node:async_hooks';
import type { TreeNode } from './tree-node.js';
import type { WorkflowRuntime } from './workflow-runtime.js';

/** Where execution currently stands: the workflow and the node (workflow, step or task) inside it. */
export interface Scope {
  readonly workflow: WorkflowRuntime;
  readonly node: TreeNode;
}

// ONE storage for the whole process, even when both the ESM and CJS builds are loaded: each
// extra AsyncLocalStorage instance slows every later promise, and two copies would not see
// each other's scope. The key carries the major version so incompatible copies stay apart.
const STORAGE_KEY = Symbol.for('groundswell.scope-storage@0');
type GlobalWithStorage = typeof globalThis & { [STORAGE_KEY]?: AsyncLocalStorage<Scope> };
const holder = globalThis as GlobalWithStorage;
const storage: AsyncLocalStorage<Scope> = (holder[STORAGE_KEY] ??= new AsyncLocalStorage<Scope>());

export function currentScope(): Scope | undefined {
  return storage.getStore();
}

// How many scoped bodies are running inside each other on the current call stack. Workflows and
// steps that start one another without an await in between nest on one stack; past this depth a
// runner yields once (see `mustYield`) so a thousand levels cannot overflow it.
const MAX_SYNC_NESTING = 48;
let syncNesting = 0;

export function runInScope<R>(scope: Scope | undefined, fn: () => R): R {
  syncNesting += 1;
  try {
    return scope === undefined ? storage.exit(fn) : storage.run(scope, fn);
  } finally {
    syncNesting -= 1;
  }
}

/** `fn(arg)` inside `scope`: a caller with its data in one object needs no closure per call. */
export function runInScopeWith<A, R>(scope: Scope, fn: (arg: A) => R, arg: A): R {
  syncNesting += 1;
  try {
    return storage.run(scope, fn, arg);
  } finally {
    syncNesting -= 1;
  }
}

/**
 * True when the current stack already holds many nested bodies: the caller should `await` once
 * before starting another, which resumes it on a fresh stack (the count is back to zero there).
 */
export function mustYield(): boolean {
  return syncNesting >= MAX_SYNC_NESTING;
}
