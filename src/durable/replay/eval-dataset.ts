import type { WorkflowFactory } from '../runtime/resume.js';
import type { RunStatus } from '../store/run-record.js';
import { UsageError } from '../../errors/groundswell-error.js';
import { errorMessage } from '../../util/describe.js';
import { totalTokens } from '../../util/usage.js';
import { checkRecording, readRecording, type Recording } from './recording.js';
import type { ReplayDivergence } from './replay-divergence.js';
import { replayRun } from './replay-run.js';
import { runNodes } from './run-nodes.js';
import { mean, scoreNodes, type Scorers } from './score-run.js';

export interface DatasetOptions {
  /** The current code, as `replayRun` takes it: each recording is replayed against it. Without it, recordings are only scored. */
  readonly workflows?: Readonly<Record<string, WorkflowFactory>>;
  /** Scorers by node path, run on each recording's nodes. */
  readonly scorers?: Scorers;
}

/** `same` or `diverged` after a replay; `error` when the replay failed otherwise; `not replayed` without workflows. */
export type DatasetReplay = 'same' | 'diverged' | 'error' | 'not replayed';

/** One recording of a dataset. */
export interface DatasetRow {
  /** The file path, or `run <id>` for a recording given as an object. */
  readonly source: string;
  readonly runId: string;
  readonly rootName: string;
  /** How the recorded run ended. */
  readonly status: RunStatus;
  readonly replay: DatasetReplay;
  readonly divergence?: ReplayDivergence;
  /** Why the replay failed, for `error`. */
  readonly error?: string;
  readonly tokens: number;
  readonly costUsd: number | null;
  /** The mean of the recording's scores; null without scores. */
  readonly score: number | null;
}

export interface DatasetReport {
  readonly rows: readonly DatasetRow[];
  readonly totals: {
    readonly recordings: number;
    readonly same: number;
    readonly diverged: number;
    readonly errors: number;
    readonly tokens: number;
    readonly costUsd: number | null;
    /** The mean of the rows' scores. */
    readonly score: number | null;
  };
}

/**
 * Runs a set of recordings as a dataset, offline: each is replayed against `workflows` (when
 * given) and scored by `scorers` (when given); one row each, with totals. Recordings are only
 * read, one after another (a replay holds the recording's run id).
 */
export async function evalDataset(recordings: readonly (Recording | string)[], options: DatasetOptions = {}): Promise<DatasetReport> {
  const rows: DatasetRow[] = [];
  for (const item of recordings) {
    const recording = typeof item === 'string' ? await readRecording(item) : checkRecording(item);
    rows.push(await evalOne(recording, typeof item === 'string' ? item : `run ${recording.run.id}`, options));
  }
  const costs = rows.flatMap((row) => (row.costUsd === null ? [] : [row.costUsd]));
  return {
    rows,
    totals: {
      recordings: rows.length,
      same: rows.filter((row) => row.replay === 'same').length,
      diverged: rows.filter((row) => row.replay === 'diverged').length,
      errors: rows.filter((row) => row.replay === 'error').length,
      tokens: rows.reduce((sum, row) => sum + row.tokens, 0),
      costUsd: costs.length === 0 ? null : costs.reduce((sum, cost) => sum + cost, 0),
      score: mean(rows.flatMap((row) => (row.score === null ? [] : [row.score]))),
    },
  };
}

async function evalOne(recording: Recording, source: string, options: DatasetOptions): Promise<DatasetRow> {
  const nodes = runNodes(recording);
  const usage = nodes[0]?.usage ?? recording.run.usage ?? null;
  const scores = options.scorers === undefined ? undefined : await scoreNodes(recording, nodes, options.scorers);
  const row = {
    source,
    runId: recording.run.id,
    rootName: recording.run.rootName,
    status: recording.run.status,
    tokens: usage === null ? 0 : totalTokens(usage),
    costUsd: usage?.costUsd ?? null,
    score: scores?.total ?? null,
  };
  if (options.workflows === undefined) return { ...row, replay: 'not replayed' };
  try {
    const replay = await replayRun(recording, { workflows: options.workflows });
    return replay.same ? { ...row, replay: 'same' } : { ...row, replay: 'diverged', divergence: replay.divergence };
  } catch (error) {
    // A missing factory is a mistake in the call, not a result of the recording.
    if (error instanceof UsageError) throw error;
    return { ...row, replay: 'error', error: errorMessage(error) };
  }
}
