import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { compareRuns } from '../durable/replay/compare-runs.js';
import { evalDataset } from '../durable/replay/eval-dataset.js';
import { formatComparison } from '../durable/replay/format-comparison.js';
import { formatDataset } from '../durable/replay/format-dataset.js';
import { CliUsageError, type CliIo } from './cli-io.js';
import { loadScorers } from './load-scorers.js';
import { loadWorkflows } from './load-workflows.js';

/** What `diff` and `eval` take besides their files. */
export interface CompareFlags {
  readonly workflows?: string;
  readonly scorers?: string;
  readonly json?: boolean;
}

/**
 * `groundswell diff <a.json> <b.json> [--scorers <module>] [--json]`: two recordings compared node
 * by node. A difference is the answer, not a failure: exit 0 (2 when a file is not a recording).
 */
export async function diffCommand(files: readonly string[], flags: CompareFlags, io: CliIo): Promise<number> {
  const [a, b, ...extra] = files;
  if (a === undefined || b === undefined || extra.length > 0) throw new CliUsageError('diff takes two recording files (written by `groundswell runs export`).');
  const scorers = flags.scorers === undefined ? undefined : await loadScorers(flags.scorers);
  const comparison = await compareRuns(a, b, scorers === undefined ? {} : { scorers });
  io.out(flags.json === true ? JSON.stringify(comparison, null, 2) : formatComparison(comparison));
  return 0;
}

/**
 * `groundswell eval <dir-or-files...> [--workflows <module>] [--scorers <module>] [--json]`: the
 * recordings as a dataset, offline, with a summary table. With workflows, each is replayed: exit 1
 * when one diverged or failed, as `replay` exits.
 */
export async function evalCommand(targets: readonly string[], flags: CompareFlags, io: CliIo): Promise<number> {
  if (targets.length === 0) throw new CliUsageError('eval takes recording files or folders of them.');
  const files = (await Promise.all(targets.map(recordingFiles))).flat();
  if (files.length === 0) throw new CliUsageError(`No recording (*.json) in ${targets.join(', ')}.`);
  const workflows = flags.workflows === undefined ? undefined : await loadWorkflows(flags.workflows);
  const scorers = flags.scorers === undefined ? undefined : await loadScorers(flags.scorers);
  const report = await evalDataset(files, { ...(workflows !== undefined ? { workflows } : {}), ...(scorers !== undefined ? { scorers } : {}) });
  io.out(flags.json === true ? JSON.stringify(report, null, 2) : formatDataset(report));
  return report.totals.diverged + report.totals.errors > 0 ? 1 : 0;
}

/** A file as given; a folder's *.json files, sorted. */
async function recordingFiles(target: string): Promise<string[]> {
  const info = await stat(target).catch(() => undefined);
  if (info?.isDirectory() !== true) return [target];
  const names = (await readdir(target)).filter((name) => name.endsWith('.json')).sort();
  return names.map((name) => join(target, name));
}
