import { readFile } from 'node:fs/promises';
import { writeFileAtomicallySync } from '../journal/sync-write.js';
import { UsageError } from '../../errors/groundswell-error.js';
import type { RunRecord } from '../store/run-record.js';
import type { RunStore } from '../store/run-store.js';
import type { CallRecord, SignalRecord, StepRecord } from '../store/stored-records.js';
import { describeValue } from '../../util/describe.js';

const RECORDING_FORMAT = 'groundswell.recording';
/** The version this release writes; it reads every version up to it. */
export const RECORDING_VERSION = 1;

/**
 * A run as one portable document: its record, its settled steps and agent calls (with what each
 * call asked), the signals it got, its named data and its last tree. What a durable run's store
 * holds for the run, so secrets are masked as the store masks them.
 */
export interface Recording {
  readonly format: typeof RECORDING_FORMAT;
  readonly version: number;
  readonly run: RunRecord;
  /** In the order they were stored. */
  readonly steps: readonly StepRecord[];
  readonly calls: readonly CallRecord[];
  readonly signals: readonly SignalRecord[];
  readonly data: Readonly<Record<string, unknown>>;
  readonly tree: unknown;
}

/** A recording of the run `runId` in `store`. The store is only read. */
export async function exportRecording(store: RunStore, runId: string): Promise<Recording> {
  const loaded = await store.loadRun(runId);
  return {
    format: RECORDING_FORMAT,
    version: RECORDING_VERSION,
    run: loaded.run,
    steps: loaded.steps,
    calls: loaded.calls,
    signals: loaded.signals,
    data: loaded.data,
    tree: loaded.tree ?? null,
  };
}

/**
 * Writes `recording` to `path` as JSON, whole or not at all: through a flushed temporary file and
 * a rename, so a kill, a full disk or a short write leaves the earlier file (or none), never a cut one.
 */
export async function writeRecording(path: string, recording: Recording): Promise<void> {
  writeFileAtomicallySync(path, `${JSON.stringify(recording)}\n`, true);
}

/** A recording from a file written by `writeRecording` or `groundswell runs export`. */
export async function readRecording(path: string): Promise<Recording> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new RecordingError(`Cannot read the recording ${JSON.stringify(path)}: ${(error as Error).message}`, { cause: error });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new RecordingError(`The recording ${JSON.stringify(path)} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  return checkRecording(parsed, path);
}

/** `value` as a recording, or a RecordingError saying what is wrong with it. */
export function checkRecording(value: unknown, source = 'the recording'): Recording {
  const shape = value as Partial<Recording> | null;
  if (typeof shape !== 'object' || shape === null || shape.format !== RECORDING_FORMAT) {
    throw new RecordingError(`${source} is not a groundswell recording (format "${RECORDING_FORMAT}"), got ${describeValue(value)}.`);
  }
  if (typeof shape.version !== 'number' || !Number.isInteger(shape.version) || shape.version < 1) {
    throw new RecordingError(`${source} has no valid version.`);
  }
  if (shape.version > RECORDING_VERSION) {
    throw new RecordingError(
      `${source} is a version ${shape.version} recording; this release of groundswell reads versions up to ${RECORDING_VERSION}: upgrade groundswell to replay it.`,
    );
  }
  const run = shape.run as Partial<RunRecord> | undefined;
  if (typeof run !== 'object' || run === null || typeof run.id !== 'string' || typeof run.rootName !== 'string') {
    throw new RecordingError(`${source} has no run record (run.id and run.rootName).`);
  }
  for (const list of ['steps', 'calls', 'signals'] as const) {
    const items = shape[list];
    if (!Array.isArray(items) || items.some((item: { key?: unknown; name?: unknown }) => typeof (list === 'signals' ? item?.name : item?.key) !== 'string')) {
      throw new RecordingError(`${source}: "${list}" must be an array of records.`);
    }
  }
  if (typeof shape.data !== 'object' || shape.data === null || Array.isArray(shape.data)) throw new RecordingError(`${source}: "data" must be an object.`);
  return shape as Recording;
}

/** A recording that cannot be read or is not one. */
export class RecordingError extends UsageError {}
