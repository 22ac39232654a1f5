import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { WorkflowFactory } from '../durable/runtime/resume.js';
import { isMissingModule } from '../util/missing-module.js';
import { CliUsageError } from './cli-io.js';

/** The workflows module cannot be loaded as given: the message says what to do instead. */
export class WorkflowsModuleError extends Error {}

/** What the command line uses of tsx's programmatic API. */
interface TsxApi {
  register(): unknown;
}

// Node cannot import TypeScript by itself; tsx (an optional install) can.
const TYPESCRIPT = /\.(?:ts|mts|cts|tsx)$/i;
// Held in a variable so the bundler leaves the import alone: tsx is never part of the build.
const TSX_API = 'tsx/esm/api';
let registered = false;

/**
 * The factories `resume` needs, from the user's module: its `workflows` export (or default export),
 * an object mapping each root workflow name to `(input) => new TheWorkflow(...)`.
 */
export async function loadWorkflows(path: string | undefined): Promise<Record<string, WorkflowFactory>> {
  if (path === undefined) throw new CliUsageError('--workflows <module> is required: a module exporting { workflows: { RootName: (input) => workflow } }.');
  const url = pathToFileURL(resolve(path)).href;
  const module = (TYPESCRIPT.test(path) ? await importTypeScript(url, path) : await import(url)) as { workflows?: unknown; default?: unknown } | undefined;
  const workflows = module?.workflows ?? module?.default;
  if (typeof workflows !== 'object' || workflows === null || Object.values(workflows).some((f) => typeof f !== 'function')) {
    throw new CliUsageError(`${path} must export \`workflows\`: an object mapping root workflow names to factory functions.`);
  }
  return workflows as Record<string, WorkflowFactory>;
}

/**
 * Imports a TypeScript module through tsx; `loadTsx` is tsx's API module (replaceable in tests).
 * tsx's hooks are registered for the whole process rather than scoped with `tsImport`: a scoped
 * import loads the module's own `groundswell` import as a second copy, whose workflows this
 * copy's `resume` would not recognise. Registered once; the workflows may import more TypeScript later.
 */
export async function importTypeScript(url: string, path: string, loadTsx: () => Promise<unknown> = () => import(TSX_API)): Promise<unknown> {
  let api: Partial<TsxApi> | undefined;
  try {
    api = (await loadTsx()) as Partial<TsxApi> | undefined;
  } catch (error) {
    if (!isMissingModule(error)) throw error;
    throw new WorkflowsModuleError(`${path} is TypeScript, which needs tsx to load: install it (npm install --save-dev tsx), or compile the module to .js and pass that.`, {
      cause: error,
    });
  }
  if (typeof api?.register !== 'function') {
    throw new WorkflowsModuleError(`${path} is TypeScript, and the installed tsx has no register API: install tsx 4 (npm install --save-dev tsx@4), or compile the module to .js.`);
  }
  if (!registered) {
    api.register();
    registered = true;
  }
  return import(url);
}

