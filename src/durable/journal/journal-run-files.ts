import { join } from 'node:path';

/** The files of one run in the journal store's folder. The id was checked by `requireRunId`. */
export interface RunFiles {
  dir: string;
  /** The run record (small, rewritten atomically): what listing reads. */
  meta: string;
  /** Steps, calls and named data, appended. */
  journal: string;
  events: string;
  /** Signals of earlier versions, one append-only file; still read. */
  signals: string;
  /** Signals, one file each (see signal-folder.ts). */
  signalDir: string;
  /** The latest tree, rewritten atomically. */
  tree: string;
  /** The lease file of earlier versions: still honoured until the run's first generation is claimed. */
  lease: string;
  /** The lease's generations and their journals (see holder-layout.ts). */
  holders: string;
}

export function runFiles(root: string, id: string): RunFiles {
  const dir = join(root, id);
  return {
    dir,
    meta: join(dir, 'run.json'),
    journal: join(dir, 'journal.log'),
    events: join(dir, 'events.log'),
    signals: join(dir, 'signals.log'),
    signalDir: join(dir, 'signals'),
    tree: join(dir, 'tree.json'),
    lease: join(dir, 'lease.json'),
    holders: join(dir, 'holders'),
  };
}
