import { readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * The process that holds a run's lease, as the stores record it with the lease (decision 0090).
 * Only `host` and `pid` are always there: the rest is what Linux shows, absent elsewhere and in
 * leases written before decision 0090.
 */
export interface HolderProcess {
  readonly host: string;
  readonly pid: number;
  /** `/proc/sys/kernel/random/boot_id`: changes at every boot, so a pid is only compared within one. */
  readonly bootId?: string;
  /** The pid namespace (`/proc/self/ns/pid`): containers on one kernel share the boot id and may share the host name. */
  readonly pidNamespace?: string;
  /** The process's start time in clock ticks since boot (`/proc/<pid>/stat`): a reused pid starts later. */
  readonly startedAt?: string;
}

/** What the liveness check asks the machine; tests give their own. */
export interface ProcessProbe {
  /** This process, as a lease records it. */
  self(): HolderProcess;
  /** Whether process `pid` exists and can still run (a zombie cannot: it was killed and only awaits its parent). */
  running(pid: number): boolean;
  /** When process `pid` started, undefined when this machine cannot tell. */
  startedAt(pid: number): string | undefined;
}

function readOptional(read: () => string): string | undefined {
  try {
    return read();
  } catch {
    // Not Linux, or /proc is not readable here: the field is left out.
    return undefined;
  }
}

/** Fields 3 on of `/proc/<pid>/stat` (after the command name, which may hold spaces and parentheses). */
function statFields(pid: number): string[] | undefined {
  const text = readOptional(() => readFileSync(`/proc/${pid}/stat`, 'utf8'));
  const end = text?.lastIndexOf(')') ?? -1;
  return text === undefined || end < 0 ? undefined : text.slice(end + 2).split(' ');
}

let self: HolderProcess | undefined;

/** The machine's own processes: `kill(pid, 0)` and `/proc`. */
export const localProcesses: ProcessProbe = {
  self(): HolderProcess {
    // Once per process (a fork's child has another pid and reads again).
    if (self?.pid === process.pid) return self;
    const bootId = readOptional(() => readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
    const pidNamespace = readOptional(() => readlinkSync('/proc/self/ns/pid'));
    const startedAt = localProcesses.startedAt(process.pid);
    self = {
      host: hostname(),
      pid: process.pid,
      ...(bootId !== undefined ? { bootId } : {}),
      ...(pidNamespace !== undefined ? { pidNamespace } : {}),
      ...(startedAt !== undefined ? { startedAt } : {}),
    };
    return self;
  },
  running(pid: number): boolean {
    try {
      process.kill(pid, 0);
    } catch (error) {
      // EPERM: the process exists under another user.
      return (error as NodeJS.ErrnoException).code !== 'ESRCH';
    }
    const state = statFields(pid)?.[0];
    return state !== 'Z' && state !== 'X';
  },
  startedAt(pid: number): string | undefined {
    // Field 22, the 20th after the command name.
    return statFields(pid)?.[19];
  },
};

/**
 * Whether the recorded holder is a process of this machine (same host name, same boot, same pid
 * namespace) that is gone: no process has its pid, or the one that has it started at another time
 * (the pid was reused). A holder elsewhere is never judged gone: only its lease's expiry, or an
 * operator's takeover, frees the run.
 */
export function holderIsGone(holder: HolderProcess, probe: ProcessProbe = localProcesses): boolean {
  const here = probe.self();
  // A boot id or namespace recorded must be ours; one not recorded (an earlier version's lease) is not compared.
  const elsewhere = (recorded: string | undefined, ours: string | undefined): boolean => recorded !== undefined && recorded !== ours;
  if (holder.host !== here.host || elsewhere(holder.bootId, here.bootId) || elsewhere(holder.pidNamespace, here.pidNamespace)) return false;
  // A start time that cannot be read says nothing: only two known, different ones tell a reused pid.
  const reused = (ours: string | undefined): boolean => holder.startedAt !== undefined && ours !== undefined && holder.startedAt !== ours;
  if (holder.pid === here.pid) return reused(here.startedAt);
  if (!probe.running(holder.pid)) return true;
  return reused(probe.startedAt(holder.pid));
}

/** Reads a recorded holder back from stored JSON; undefined when it holds none (a lease of an earlier version). */
export function parseHolderProcess(value: unknown): HolderProcess | undefined {
  const record = value as Partial<Record<keyof HolderProcess, unknown>> | null;
  if (typeof record !== 'object' || record === null || typeof record.host !== 'string' || typeof record.pid !== 'number') return undefined;
  const text = (field: unknown): string | undefined => (typeof field === 'string' ? field : undefined);
  const bootId = text(record.bootId);
  const pidNamespace = text(record.pidNamespace);
  const startedAt = text(record.startedAt);
  return {
    host: record.host,
    pid: record.pid,
    ...(bootId !== undefined ? { bootId } : {}),
    ...(pidNamespace !== undefined ? { pidNamespace } : {}),
    ...(startedAt !== undefined ? { startedAt } : {}),
  };
}
