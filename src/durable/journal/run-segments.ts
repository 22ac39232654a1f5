import { RunStoreError } from '../store/run-store-errors.js';
import { generationOpenCheck, holderFolder, listGenerations, segmentPath, type SegmentKind } from './holder-layout.js';
import { sealEarlierGenerations, type SealOptions } from './earlier-generations.js';
import { readOpenSegment, readSealedSegment } from './segment-read.js';
import type { Seal } from './segment-seal.js';
import type { RunFiles } from './journal-run-files.js';

/** One generation's records of one kind. */
interface SegmentPart {
  path: string;
  bodies: Buffer[];
}

/** Every record of one kind that a reader sees, generation by generation. */
export interface RunSegments {
  /** Oldest generation first; the last is the newest generation, read whole. */
  parts: SegmentPart[];
  /** The newest generation (the lease's current one, or 0). */
  newest: number;
  /** Where the newest generation's valid records ended when read. */
  newestEnd: number;
  /** The seals of the generations below the newest (index = generation). */
  seals: Seal[];
}

// Each retry means a takeover landed during the read; this many in a row means no folder is there.
const READ_ATTEMPTS = 8;

/**
 * Reads a run's journal or events: each earlier generation up to its seal, then the newest one
 * whole. If the newest was fenced while it was read (a takeover), what was read of it may run
 * past the seal its taker takes, so it is read again with that seal: a reader never sees a record
 * that a later reader will not.
 */
export function readRunSegments(files: RunFiles, kind: SegmentKind, options: SealOptions): RunSegments {
  for (let attempt = 0; attempt < READ_ATTEMPTS; attempt += 1) {
    const generations = listGenerations(files);
    const seals = sealEarlierGenerations(files, generations, options);
    const parts: SegmentPart[] = seals.map((seal, generation) => {
      const path = segmentPath(files, generation, kind);
      return { path, bodies: readSealedSegment(path, seal[kind]).bodies };
    });
    const newestPath = segmentPath(files, generations.newest, kind);
    const newest = readOpenSegment(newestPath, options.onTorn);
    parts.push({ path: newestPath, bodies: newest.bodies });
    if (generationOpenCheck(files, generations.newest)()) return { parts, newest: generations.newest, newestEnd: newest.end, seals };
  }
  throw new RunStoreError(
    `${files.dir}: the lease's newest generation kept changing, or its folder ${holderFolder(files, listGenerations(files).newest)} is missing; the run's records were not read.`,
  );
}
