/**
 * The stdio servers still alive in this process, killed if the process exits first. One 'exit'
 * listener serves them all: it is added with the first server and removed with the last, so any
 * number of servers neither leaks listeners nor trips Node's max-listeners warning.
 */
const live = new Map<number, boolean>();

function killAll(): void {
  // 'exit' handlers must be synchronous: a kill is, and SIGKILL cannot be ignored.
  for (const [pid, ownGroup] of live) killProcess(pid, ownGroup, 'SIGKILL');
}

/** Signals a child (its whole group when it leads one); false when nothing was left to signal. */
export function killProcess(pid: number, ownGroup: boolean, signal: NodeJS.Signals): boolean {
  try {
    process.kill(ownGroup ? -pid : pid, signal);
    return true;
  } catch {
    // ESRCH: already gone.
    return false;
  }
}

/** Kills `pid` (its group when `ownGroup`) if this process exits first; the returned function stops that. */
export function killOnExit(pid: number, ownGroup: boolean): () => void {
  if (live.size === 0) process.on('exit', killAll);
  live.set(pid, ownGroup);
  return () => {
    if (!live.delete(pid)) return;
    if (live.size === 0) process.off('exit', killAll);
  };
}
