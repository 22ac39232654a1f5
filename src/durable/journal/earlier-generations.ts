import { renameSync, rmSync } from 'node:fs';
import { fencedFolder, holderFolder, sealPath, type Generations } from './holder-layout.js';
import type { RecoveredTail } from './journal-file.js';
import type { RunFiles } from './journal-run-files.js';
import { readSeal, takeSeal, type Seal } from './segment-seal.js';

export interface SealOptions {
  fsync: boolean;
  onTorn: (tail: RecoveredTail) => void;
}

/**
 * Fences and seals every generation below the newest one, oldest first, and returns their seals
 * (index = generation). The new holder does this right after its claim; whoever finds it undone
 * (that holder was killed in between, or is doing it right now) finishes it, which is safe because
 * only the newest generation holds the lease.
 */
export function sealEarlierGenerations(files: RunFiles, generations: Generations, options: SealOptions): Seal[] {
  const seals: Seal[] = [];
  let nextSeq = 1;
  for (let generation = 0; generation < generations.newest; generation += 1) {
    if (generation > 0 && generations.unfenced.has(generation)) fenceGeneration(files, generation);
    const seal = generations.sealed.has(generation) ? readSeal(sealPath(files, generation)) : takeSeal(files, generation, nextSeq, options);
    seals.push(seal);
    nextSeq = seal.nextSeq;
  }
  return seals;
}

/**
 * Renames the holder's folder away: a rewrite it staged there can no longer be renamed into
 * place, a rewrite it stages later cannot even be created, and its appends see the folder gone.
 */
function fenceGeneration(files: RunFiles, generation: number): void {
  const fenced = fencedFolder(files, generation);
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      renameSync(holderFolder(files, generation), fenced);
      return;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Fenced by someone else already.
      if (code === 'ENOENT') return;
      if (attempt > 0 || (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'EPERM')) throw error;
      // A folder of that name left over (restored by hand): only old lease files, never read.
      rmSync(fenced, { recursive: true, force: true });
    }
  }
}
