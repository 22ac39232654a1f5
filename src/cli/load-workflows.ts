import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { WorkflowFactory } from '../replay/resume.js';
import { CliUsageError } from './cli-io.js';

/**
 * The factories `resume` needs, from the user's module: its `workflows` export (or default export),
 * an object mapping each root workflow name to `(input) => new TheWorkflow(...)`.
 */
export async function loadWorkflows(path: string | undefined): Promise<Record<string, WorkflowFactory>> {
  if (path === undefined) throw new CliUsageError('--workflows <module> is required: a module exporting { workflows: { RootName: (input) => workflow } }.');
  const module = (await import(pathToFileURL(resolve(path)).href)) as { workflows?: unknown; default?: unknown };
  const workflows = module.workflows ?? module.default;
  if (typeof workflows !== 'object' || workflows === null || Object.values(workflows).some((f) => typeof f !== 'function')) {
    throw new CliUsageError(`${path} must export \`workflows\`: an object mapping root workflow names to factory functions.`);
  }
  return workflows as Record<string, WorkflowFactory>;
}
