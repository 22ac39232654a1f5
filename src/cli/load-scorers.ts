import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Scorers } from '../durable/replay/score-run.js';
import { CliUsageError } from './cli-io.js';
import { importTypeScript } from './load-workflows.js';

const TYPESCRIPT = /\.(?:ts|mts|cts|tsx)$/i;

/** The scorers of the user's module: its `scorers` export (or default export), node paths to functions. */
export async function loadScorers(path: string): Promise<Scorers> {
  const url = pathToFileURL(resolve(path)).href;
  const module = (TYPESCRIPT.test(path) ? await importTypeScript(url, path) : await import(url)) as { scorers?: unknown; default?: unknown } | undefined;
  const scorers = module?.scorers ?? module?.default;
  if (typeof scorers !== 'object' || scorers === null || Object.values(scorers).some((f) => typeof f !== 'function')) {
    throw new CliUsageError(`${path} must export \`scorers\`: an object mapping node paths (e.g. "Pipeline › summarize") to functions returning a score from 0 to 1.`);
  }
  return scorers as Scorers;
}
