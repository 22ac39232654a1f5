import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { RunFiles } from './journal-run-files.js';
import { symlinkRefused } from './no-follow.js';

/**
 * Where each generation of a run's lease keeps its files (decision 0066). Generation 0 is the
 * run's top-level `journal.log` and `events.log` (every run stored before generations existed,
 * and writes made before any lease was taken). Generation N >= 1, in `holders/`:
 *
 * - `N/`: the holder's folder, `lease.json` inside; its rewrites are staged here, so once the
 *   folder is renamed to `N.fenced/` (the next holder's first act) none of them can land;
 * - `N.journal.log`, `N.events.log`: what the holder appended;
 * - `N.end`: the seal, how much of those two files readers take (written once N is fenced).
 */
export type SegmentKind = 'journal' | 'events';

const FOLDER = /^([1-9]\d{0,14})$/;
const FENCED = /^([1-9]\d{0,14})\.fenced$/;
const SEAL = /^(0|[1-9]\d{0,14})\.end$/;
const SEGMENT = /^([1-9]\d{0,14})\.(?:journal|events)\.log$/;

export function holderFolder(files: RunFiles, generation: number): string {
  return join(files.holders, String(generation));
}

export function fencedFolder(files: RunFiles, generation: number): string {
  return join(files.holders, `${generation}.fenced`);
}

export function sealPath(files: RunFiles, generation: number): string {
  return join(files.holders, `${generation}.end`);
}

export function segmentPath(files: RunFiles, generation: number, kind: SegmentKind): string {
  if (generation === 0) return kind === 'journal' ? files.journal : files.events;
  return join(files.holders, `${generation}.${kind}.log`);
}

/**
 * Asks whether generation `generation` may still append: its folder has not been fenced (for
 * generation 0: no generation was claimed, `holders/` appears with the first claim). Each ask is
 * one `access(2)`, its path built once: a writer asks after each write, a reader after reading the
 * newest generation.
 */
export function generationOpenCheck(files: RunFiles, generation: number): () => boolean {
  if (generation === 0) return () => !existsSync(files.holders);
  const folder = holderFolder(files, generation);
  return () => existsSync(folder);
}

/** What one listing of `holders/` shows. */
export interface Generations {
  /** Whether `holders/` exists (a generation was claimed: generation 0 is closed). */
  started: boolean;
  /** The highest generation claimed; 0 when none. */
  newest: number;
  /** Generations whose folder still has its plain name (not fenced). */
  unfenced: ReadonlySet<number>;
  /** Generations whose folder was renamed to `N.fenced`, ascending. */
  fenced: readonly number[];
  /** Generations with a seal. */
  sealed: ReadonlySet<number>;
}

/** Lists `holders/` (one directory read); a symbolic link in it is refused like one in the run folder. */
export function listGenerations(files: RunFiles): Generations {
  let entries;
  try {
    entries = readdirSync(files.holders, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { started: false, newest: 0, unfenced: new Set(), fenced: [], sealed: new Set() };
    throw error;
  }
  let newest = 0;
  const unfenced = new Set<number>();
  const fenced: number[] = [];
  const sealed = new Set<number>();
  for (const entry of entries) {
    if (entry.isSymbolicLink()) throw symlinkRefused(join(files.holders, entry.name));
    const name = entry.name;
    let match: RegExpExecArray | null;
    if ((match = FOLDER.exec(name)) !== null) unfenced.add(Number(match[1]));
    else if ((match = FENCED.exec(name)) !== null) fenced.push(Number(match[1]));
    else if ((match = SEAL.exec(name)) !== null) sealed.add(Number(match[1]));
    else if ((match = SEGMENT.exec(name)) === null) continue;
    newest = Math.max(newest, Number(match[1]));
  }
  return { started: true, newest, unfenced, fenced: fenced.sort((a, b) => a - b), sealed };
}
