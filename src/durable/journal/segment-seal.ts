import { randomUUID } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { errorMessage } from '../../util/describe.js';
import { PRIVATE_FILE_MODE } from '../../util/private-modes.js';
import { RunStoreCorruptError, RunStoreError } from '../store/run-store-errors.js';
import { sealPath, segmentPath } from './holder-layout.js';
import type { RecoveredTail } from './journal-file.js';
import type { RunFiles } from './journal-run-files.js';
import { readFileNoFollowSync } from './no-follow.js';
import { nextSeqAfter, readOpenSegment } from './segment-read.js';
import { syncDirectory, writeAllSync } from './sync-write.js';

/** A generation's seal (`holders/N.end`): how much of its two files readers take. */
export interface Seal {
  /** Bytes of its journal. */
  journal: number;
  /** Bytes of its events. */
  events: number;
  /** The sequence number of the next event after everything up to here (its own and earlier). */
  nextSeq: number;
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

export function readSeal(path: string): Seal {
  let value: unknown;
  try {
    value = JSON.parse(readFileNoFollowSync(path).toString('utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== undefined) throw error;
    throw new RunStoreCorruptError(path, 'holds no seal (it is written whole, so it was damaged afterwards).', { cause: error });
  }
  const seal = value as Partial<Seal> | null;
  if (typeof seal !== 'object' || seal === null || !isCount(seal.journal) || !isCount(seal.events) || !isCount(seal.nextSeq) || seal.nextSeq < 1) {
    throw new RunStoreCorruptError(path, 'holds no seal (it is written whole, so it was damaged afterwards).');
  }
  return { journal: seal.journal, events: seal.events, nextSeq: seal.nextSeq };
}

/**
 * Seals generation `generation`, which must be closed already (its folder fenced, or for
 * generation 0 a generation claimed): at the end of the last whole record of each of its files.
 * Its holder can no longer learn that it holds the lease, so anything it appends from here on
 * lies past the seal and is never read. Whoever first needs the seal takes it (the next holder,
 * a reader, the old holder itself); the first to link it wins and every other one reads that
 * one, so all agree. A torn last record is left outside the seal and reported once, here.
 */
export function takeSeal(files: RunFiles, generation: number, previousNextSeq: number, options: { fsync: boolean; onTorn: (tail: RecoveredTail) => void }): Seal {
  const path = sealPath(files, generation);
  const journal = readOpenSegment(segmentPath(files, generation, 'journal'), options.onTorn);
  const eventsPath = segmentPath(files, generation, 'events');
  const events = readOpenSegment(eventsPath, options.onTorn);
  const seal: Seal = { journal: journal.end, events: events.end, nextSeq: nextSeqAfter(events, eventsPath) ?? previousNextSeq };
  const temp = join(files.holders, `.${generation}.end.${randomUUID()}.tmp`);
  try {
    const fd = openSync(temp, 'wx', PRIVATE_FILE_MODE);
    try {
      writeAllSync(fd, Buffer.from(JSON.stringify(seal), 'utf8'));
      if (options.fsync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    linkSync(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return readSeal(path);
    throw new RunStoreError(`${path} could not be written (${errorMessage(error)}); the generation stays unsealed until a later read seals it.`, { cause: error });
  } finally {
    rmSync(temp, { force: true });
  }
  // The new holder goes on from this seal: it must not come back without it after a power loss.
  if (options.fsync) syncDirectory(files.holders);
  return seal;
}
