import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { readFileNoFollowSync } from './no-follow.js';
import { PRIVATE_FILE_MODE } from '../../util/private-modes.js';
import type { Lease } from '../store/run-store.js';
import { RunLeaseError, RunStoreCorruptError } from '../store/run-store-errors.js';
import { writeFileAtomicallySync } from './sync-write.js';

/** What a lease file holds. `token` tells this acquisition from an earlier one by the same owner. */
interface LeaseFile {
  owner: string;
  token: string;
  pid: number;
  host: string;
  expiresAt: number;
}

const TAKEOVER_ATTEMPTS = 4;

function isLeaseFile(value: unknown): value is LeaseFile {
  const lease = value as Partial<LeaseFile> | null;
  return (
    typeof lease === 'object' &&
    lease !== null &&
    typeof lease.owner === 'string' &&
    typeof lease.token === 'string' &&
    typeof lease.pid === 'number' &&
    typeof lease.host === 'string' &&
    typeof lease.expiresAt === 'number'
  );
}

/**
 * The lease file at `path`, undefined when there is none. It only ever appears whole (see
 * `createExclusive`), so one that holds no lease was damaged afterwards: refused, not taken over,
 * since the run may well be running.
 */
function readLease(path: string): { text: string; lease: LeaseFile } | undefined {
  let text: string;
  try {
    text = readFileNoFollowSync(path).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let lease: unknown;
  try {
    lease = JSON.parse(text);
  } catch (error) {
    throw damagedLease(path, error);
  }
  if (!isLeaseFile(lease)) throw damagedLease(path);
  return { text, lease };
}

function damagedLease(path: string, cause?: unknown): RunStoreCorruptError {
  return new RunStoreCorruptError(
    path,
    'holds no lease (it is written whole, so it was damaged afterwards). Make sure no process is running this run, then delete it to clear the lease.',
    cause === undefined ? undefined : { cause },
  );
}

function pidIsDead(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists under another user.
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** Whether a lease may be taken over: expired, or its process on this host is gone. */
function isStale(lease: LeaseFile, now: number): boolean {
  if (lease.expiresAt <= now) return true;
  return lease.host === hostname() && lease.pid !== process.pid && pidIsDead(lease.pid);
}

/**
 * Creates the lease file with its whole content or not at all: written to a temp file, then
 * link()ed into place, which fails when the file exists (O_EXCL semantics without a moment in
 * which the file exists but is still empty).
 */
function createExclusive(path: string, lease: LeaseFile): boolean {
  const temp = `${path}.${randomUUID()}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify(lease), { flag: 'wx', mode: PRIVATE_FILE_MODE });
    linkSync(temp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temp, { force: true });
  }
}

/**
 * Moves a stale lease file aside and checks that what was moved is the stale one judged (not a
 * fresh lease another process created meanwhile, which is put back). Rename is atomic, so of
 * several processes taking over the same stale lease exactly one moves it.
 */
function removeStale(path: string, staleText: string): void {
  const aside = `${path}.${randomUUID()}.stale`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (readFileSync(aside, 'utf8') !== staleText) {
    try {
      linkSync(aside, path);
    } catch {
      // A third process created a lease in between; the one moved aside has lost, as if it expired.
    }
  }
  rmSync(aside, { force: true });
}

/** A lease on one run held through a lock file created exclusively (see `acquireFileLease`). */
class FileLease implements Lease {
  constructor(
    readonly runId: string,
    private readonly path: string,
    private held: LeaseFile,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {}

  get owner(): string {
    return this.held.owner;
  }

  get expiresAt(): number {
    return this.held.expiresAt;
  }

  async renew(): Promise<void> {
    this.requireHeld();
    const next = { ...this.held, expiresAt: this.now() + this.ttlMs };
    writeFileAtomicallySync(this.path, JSON.stringify(next), false);
    this.held = next;
  }

  async release(): Promise<void> {
    const found = readLease(this.path);
    if (found?.lease.token === this.held.token) rmSync(this.path, { force: true });
  }

  private requireHeld(): void {
    const found = readLease(this.path);
    if (found?.lease.token !== this.held.token) {
      throw new RunLeaseError(
        this.runId,
        found?.lease.owner,
        found?.lease.expiresAt,
        `The lease of run "${this.runId}" held by "${this.held.owner}" was lost (it expired and was taken over${found === undefined ? ' or released' : ` by "${found.lease.owner}"`}).`,
      );
    }
  }
}

/**
 * Takes the lease file at `path`: creates it exclusively (see `createExclusive`); a live lease of the same owner is
 * renewed; another owner's live lease is a `RunLeaseError`; a stale one (expired, or of a dead
 * process on this host) is taken over; a damaged one is a `RunStoreCorruptError`.
 */
export function acquireFileLease(runId: string, path: string, owner: string, ttlMs: number, now: () => number): Lease {
  const mine = (): LeaseFile => ({ owner, token: randomUUID(), pid: process.pid, host: hostname(), expiresAt: now() + ttlMs });
  for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt += 1) {
    const lease = mine();
    if (createExclusive(path, lease)) return new FileLease(runId, path, lease, ttlMs, now);
    const found = readLease(path);
    if (found === undefined) continue;
    if (found.lease.owner === owner && found.lease.expiresAt > now()) {
      const renewed = { ...found.lease, pid: process.pid, host: hostname(), expiresAt: now() + ttlMs };
      writeFileAtomicallySync(path, JSON.stringify(renewed), false);
      return new FileLease(runId, path, renewed, ttlMs, now);
    }
    if (!isStale(found.lease, now())) throw new RunLeaseError(runId, found.lease.owner, found.lease.expiresAt);
    removeStale(path, found.text);
  }
  const last = readLease(path)?.lease;
  throw new RunLeaseError(runId, last?.owner, last?.expiresAt);
}
