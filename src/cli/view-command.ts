import { readFile } from 'node:fs/promises';
import { parseRunExport, RunExportError } from '../debugger/run-export.js';
import { compareRuns } from '../durable/replay/compare-runs.js';
import { exportRecording, readRecording, type Recording } from '../durable/replay/recording.js';
import type { RunStore } from '../durable/store/run-store.js';
import type { RunExport } from '../types/serialized.js';
import { errorMessage } from '../util/describe.js';
import { inertText } from '../util/inert-text.js';
import { serveViewer, type Viewer } from '../viewer/serve-viewer.js';
import { shellWord } from '../viewer/shell-word.js';
import type { ViewerWait } from '../viewer/viewer-wait.js';
import { CliUsageError, type CliIo } from './cli-io.js';
import { runLine } from './format-run.js';
import { openStore, type StoreFlags } from './open-store.js';

export interface ViewFlags extends StoreFlags {
  readonly port?: string;
  readonly host?: string;
  /** Lets the page send the signal a waiting run waits for (decision 0081). */
  readonly 'allow-signals'?: boolean;
  /** `view --compare <a> <b>`: the first of two runs shown side by side (the target is the second). */
  readonly compare?: string;
}

/** How often a running stored run is read again. */
const POLL_MS = 1_000;

/**
 * `groundswell view <run.json>` or `view --store <dir>|--pg <url> [runId]`: serves the viewer until
 * `stop` settles (Ctrl+C for the command line). Without a run id it lists the store's runs.
 */
export async function viewCommand(target: string | undefined, flags: ViewFlags, io: CliIo, stop: Promise<unknown>): Promise<number> {
  const port = parsePort(flags.port);
  const fromStore = flags.store !== undefined || flags.pg !== undefined;
  const allowSignals = flags['allow-signals'] === true;
  if (flags.compare !== undefined) {
    if (allowSignals) throw new CliUsageError('--allow-signals shows one stored run; it does not go with --compare.');
    return viewComparison(flags.compare, target, flags, io, stop, port);
  }
  if (!fromStore) {
    if (target === undefined || target === '') throw new CliUsageError('Missing a run export file (or --store <dir> / --pg <url>).');
    // A signal is stored with the run: an export file has no store to send it to.
    if (allowSignals) throw new CliUsageError('--allow-signals needs a stored run: view --store <dir> <runId> or view --pg <url> <runId>.');
    const run = await readRunFile(target);
    const viewer = await serveViewer({ port, ...(flags.host !== undefined ? { host: flags.host } : {}) });
    viewer.show(run);
    io.out(`Viewing ${inertText(target)} (${inertText(run.root.name)}) at ${viewer.url}  (Ctrl+C stops)`);
    await stop;
    await viewer.close();
    return 0;
  }
  const store = await openStore(flags);
  let viewer: Viewer | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    if (target === undefined || target === '') {
      const runs = await store.listRuns({ limit: 50 });
      if (runs.length === 0) io.out('No runs.');
      for (const run of runs) io.out(runLine(run));
      if (runs.length > 0) io.out(`\nView one: groundswell view ${flags.pg !== undefined ? '--pg <url>' : `--store ${flags.store}`} <runId>`);
      return 0;
    }
    let running = await load(store, target);
    viewer = await serveViewer({ port, ...(flags.host !== undefined ? { host: flags.host } : {}), allowSignals });
    const shown = viewer;
    const signalTo = { store, runId: target, storeFlag: storeFlag(flags) };
    const update = (tree: RunExport | undefined, live: boolean, waitingFor: ViewerWait | undefined): void => {
      if (tree !== undefined) shown.show(tree, { live, ...(waitingFor !== undefined ? { waitingFor } : {}), signalTo });
    };
    update(running.tree, running.live, running.waitingFor);
    io.out(`Viewing run ${target} at ${viewer.url}  (Ctrl+C stops)${running.live ? '; it is running: the page follows it' : ''}`);
    if (running.tree === undefined) io.out('(no tree stored yet: a run stores it when it ends, suspends or checkpoints)');
    if (allowSignals) io.out('Signals allowed: the page can send the signal the run waits for (as `groundswell runs signal` does).');
    // A running run stores its tree as it goes: read it again until it ends.
    const poll = async (): Promise<void> => {
      if (!running.live) return;
      try {
        running = await load(store, target);
        update(running.tree, running.live, running.waitingFor);
      } catch (error) {
        io.err(`Reading run ${inertText(target)} failed: ${inertText(errorMessage(error))}`);
      }
      timer = setTimeout(() => void poll(), POLL_MS);
    };
    timer = setTimeout(() => void poll(), POLL_MS);
    await stop;
    return 0;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    await viewer?.close();
    await store.close();
  }
}

/**
 * `view --compare <a.json> <b.json>` (two recordings) or `view --store <dir>|--pg <url> --compare
 * <runA> <runB>` (both exported from the store): the two runs side by side, until `stop` settles.
 */
async function viewComparison(first: string, second: string | undefined, flags: ViewFlags, io: CliIo, stop: Promise<unknown>, port: number): Promise<number> {
  const fromStore = flags.store !== undefined || flags.pg !== undefined;
  if (first === '' || second === undefined || second === '') {
    throw new CliUsageError(`view --compare takes two runs: view --compare <a.json> <b.json>, or view --store <dir> --compare <runA> <runB>.`);
  }
  let runs: [Recording, Recording];
  if (fromStore) {
    const store = await openStore(flags);
    try {
      runs = [await exportRecording(store, first), await exportRecording(store, second)];
    } finally {
      await store.close();
    }
  } else {
    // A file that is not a recording is a RecordingError: exit 2, as `diff` says it.
    runs = await Promise.all([readRecording(first), readRecording(second)]);
  }
  const comparison = await compareRuns(...runs);
  const viewer = await serveViewer({ port, ...(flags.host !== undefined ? { host: flags.host } : {}) });
  try {
    viewer.showComparison(comparison);
    io.out(`Comparing ${inertText(first)} and ${inertText(second)} at ${viewer.url}  (Ctrl+C stops)`);
    io.out(inertText(comparison.summary));
    await stop;
    return 0;
  } finally {
    await viewer.close();
  }
}

/**
 * How the commands the page shows name this store: as the viewer was opened, ready to paste. A
 * PostgreSQL URL with a password (or one that does not parse) shows as `<url>`: the page is no
 * place for a secret.
 */
export function storeFlag(flags: StoreFlags): string {
  if (flags.pg === undefined) return flags.store === undefined ? '--store <dir>' : `--store ${shellWord(flags.store)}`;
  const schema = flags.schema !== undefined ? ` --schema ${shellWord(flags.schema)}` : '';
  return `--pg ${hasPassword(flags.pg) ? '<url>' : shellWord(flags.pg)}${schema}`;
}

function hasPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' || parsed.searchParams.has('password');
  } catch {
    return true;
  }
}

async function load(store: RunStore, runId: string): Promise<{ tree: RunExport | undefined; live: boolean; waitingFor: ViewerWait | undefined }> {
  const loaded = await store.loadRun(runId);
  const { status, waitingFor } = loaded.run;
  return {
    tree: loaded.tree === undefined ? undefined : (loaded.tree as RunExport),
    live: status === 'running',
    // The banner of a suspended run: what it waits for, from its record.
    waitingFor: status === 'suspended' ? waitingFor : undefined,
  };
}

async function readRunFile(path: string): Promise<RunExport> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new RunExportError(`Cannot read ${path}: ${errorMessage(error)}`, { cause: error });
  }
  try {
    return parseRunExport(text);
  } catch (error) {
    throw new RunExportError(`${path} is not a run export this viewer can show: ${errorMessage(error)}`, { cause: error });
  }
}

function parsePort(text: string | undefined): number {
  if (text === undefined) return 0;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new CliUsageError(`--port must be a port number from 0 to 65535, got "${text}".`);
  return port;
}
