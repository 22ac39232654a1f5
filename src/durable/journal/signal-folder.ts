import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, lstatSync, mkdirSync, openSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../../util/describe.js';
import { encodeFrame, MAX_RECORD_BYTES, scanFrames } from './journal-frame.js';
import { readFileNoFollowSync } from './no-follow.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../util/private-modes.js';
import { RunStoreCorruptError, RunStoreError, RunValueError } from '../store/run-store-errors.js';
import { syncDirectory, writeAllSync } from './sync-write.js';

/**
 * A run's signals, one file each (`000000000001.sig`, ...), because signals come from any process
 * at any time: a shared append-only file would need a lock so that one writer's half-written record
 * is never taken for a torn tail by another. Each signal is written whole to a temp file and then
 * link()ed to the next free number, which fails if another process took that number first: a
 * reader sees whole signals only, in the order their numbers were taken, and sending one costs a
 * folder listing and one write, whatever the run holds already.
 */
const SIGNAL_FILE = /^(\d{12})\.sig$/;
const NUMBER_ATTEMPTS = 10_000;

function signalNumbers(dir: string): number[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const numbers: number[] = [];
  for (const name of names) {
    const match = SIGNAL_FILE.exec(name);
    if (match !== null) numbers.push(Number(match[1]));
  }
  return numbers.sort((a, b) => a - b);
}

function fileName(n: number): string {
  return `${String(n).padStart(12, '0')}.sig`;
}

/** Refuses a signals folder that is a link: writes must stay inside the store. */
function requireRealFolder(dir: string): void {
  let stat;
  try {
    stat = lstatSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (!stat.isDirectory()) throw new RunStoreCorruptError(dir, 'is not a folder (a link or a file): the store does not follow it.');
}

/** Writes one signal (its JSON text) into `dir`; `owner` names the run in errors. */
export function appendSignal(dir: string, payload: string, fsync: boolean, owner: string): void {
  const frame = encodeFrame(payload);
  if (frame.length > MAX_RECORD_BYTES) {
    throw new RunValueError(`A signal of ${frame.length} bytes is larger than the store takes (${MAX_RECORD_BYTES}).`);
  }
  requireRealFolder(dir);
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const temp = join(dir, `.${randomUUID()}.tmp`);
  try {
    try {
      writeWhole(temp, frame, fsync);
    } catch (error) {
      throw new RunStoreError(`${owner}: a signal could not be written to ${dir} (${errorMessage(error)}); nothing was stored.`, { cause: error });
    }
    let next = (signalNumbers(dir).at(-1) ?? 0) + 1;
    for (let attempt = 0; attempt < NUMBER_ATTEMPTS; attempt += 1, next += 1) {
      try {
        linkSync(temp, join(dir, fileName(next)));
        if (fsync) syncDirectory(dir);
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
          throw new RunStoreError(`${owner}: a signal could not be stored in ${dir} (${errorMessage(error)}); nothing was stored.`, { cause: error });
        }
      }
    }
    throw new RunStoreError(`${owner}: no free signal number in ${dir} after ${NUMBER_ATTEMPTS} attempts.`);
  } finally {
    rmSync(temp, { force: true });
  }
}

function writeWhole(path: string, frame: Buffer, fsync: boolean): void {
  const fd = openSync(path, 'wx', PRIVATE_FILE_MODE);
  try {
    writeAllSync(fd, frame);
    if (fsync) fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The signals in `dir`, in the order they were numbered. */
export function readSignals(dir: string): unknown[] {
  requireRealFolder(dir);
  const signals: unknown[] = [];
  for (const n of signalNumbers(dir)) {
    const path = join(dir, fileName(n));
    const scanned = scanFrames(readFileNoFollowSync(path), path);
    // Files are linked in whole: anything short of one good record is damage, not a torn write.
    if (scanned.torn !== undefined || scanned.bodies.length !== 1) {
      throw new RunStoreCorruptError(path, `does not hold exactly one whole signal${scanned.torn !== undefined ? ` (${scanned.torn.why})` : ''}.`);
    }
    try {
      signals.push(JSON.parse((scanned.bodies[0] as Buffer).toString('utf8')));
    } catch (error) {
      throw new RunStoreCorruptError(path, 'holds no JSON although its checksum matches.', { cause: error });
    }
  }
  return signals;
}
