import { randomUUID } from 'node:crypto';
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { Lease } from './run-store.js';
import { RunLeaseError } from './run-store-errors.js';
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

function readLease(path: string): { text: string; lease: LeaseFile | undefined } | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const lease = JSON.parse(text) as LeaseFile;
    return { text, lease: typeof lease?.owner === 'string' && typeof lease.expiresAt === 'number' ? lease : undefined };
  } catch {
    // Empty or half-written: its writer is writing it, or died between creating and writing it.
    return { text, lease: undefined };
  }
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

/** Whether a lease file may be taken over: unreadable, expired, or its process on this host is gone. */
function isStale(lease: LeaseFile | undefined, now: number): boolean {
  if (lease === undefined) return true;
  if (lease.expiresAt <= now) return true;
  return lease.host === hostname() && typeof lease.pid === 'number' && lease.pid !== process.pid && pidIsDead(lease.pid);
}

/**
 * Creates the lease file with its whole content or not at all: written to a temp file, then
 * link()ed into place, which fails when the file exists (O_EXCL semantics without a moment in
 * which the file exists but is still empty).
 */
function createExclusive(path: string, lease: LeaseFile): boolean {
  const temp = `${path}.${randomUUID()}.tmp`;
  try {
    writeFileSync(temp, JSON.stringify(lease), { flag: 'wx' });
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
    if (found?.lease?.token === this.held.token) rmSync(this.path, { force: true });
  }

  private requireHeld(): void {
    const found = readLease(this.path);
    if (found?.lease?.token !== this.held.token) {
      throw new RunLeaseError(
        this.runId,
        found?.lease?.owner,
        found?.lease?.expiresAt,
        `The lease of run "${this.runId}" held by "${this.held.owner}" was lost (it expired and was taken over${found?.lease === undefined ? ' or released' : ` by "${found.lease.owner}"`}).`,
      );
    }
  }
}

/**
 * Takes the lease file at `path`: creates it exclusively (see `createExclusive`); a live lease of the same owner is
 * renewed; another owner's live lease is a `RunLeaseError`; a stale one (expired, unreadable,
 * or of a dead process on this host) is taken over.
 */
export function acquireFileLease(runId: string, path: string, owner: string, ttlMs: number, now: () => number): Lease {
  const mine = (): LeaseFile => ({ owner, token: randomUUID(), pid: process.pid, host: hostname(), expiresAt: now() + ttlMs });
  for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt += 1) {
    const lease = mine();
    if (createExclusive(path, lease)) return new FileLease(runId, path, lease, ttlMs, now);
    const found = readLease(path);
    if (found === undefined) continue;
    if (found.lease !== undefined && found.lease.owner === owner && found.lease.expiresAt > now()) {
      const renewed = { ...found.lease, pid: process.pid, host: hostname(), expiresAt: now() + ttlMs };
      writeFileAtomicallySync(path, JSON.stringify(renewed), false);
      return new FileLease(runId, path, renewed, ttlMs, now);
    }
    if (!isStale(found.lease, now())) throw new RunLeaseError(runId, found.lease?.owner, found.lease?.expiresAt);
    removeStale(path, found.text);
  }
  const last = readLease(path)?.lease;
  throw new RunLeaseError(runId, last?.owner, last?.expiresAt);
}
