import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { readFileNoFollowSync } from './no-follow.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from '../../util/private-modes.js';
import type { Lease } from '../store/run-store.js';
import { RunLeaseError, RunStoreCorruptError, type RunFencedError } from '../store/run-store-errors.js';
import { fencedError } from '../store/fenced-error.js';
import { holderIsGone, localProcesses, type HolderProcess } from '../store/holder-process.js';
import { fencedFolder, holderFolder, listGenerations } from './holder-layout.js';
import { rewriteThroughFolder } from './holder-rewrite.js';
import { sealEarlierGenerations, type SealOptions } from './earlier-generations.js';
import type { RunFiles } from './journal-run-files.js';
import { syncDirectory, writeAllSync } from './sync-write.js';

/**
 * What a lease file holds: the holder's process (host and pid; on Linux also boot id, pid
 * namespace and start time) beside the lease. `token` tells this holding from every other one, the
 * same owner's included.
 */
interface LeaseFile extends HolderProcess {
  owner: string;
  token: string;
  expiresAt: number;
  /** Given up by its holder: anyone may take the run. */
  released?: boolean;
}

/** What a lease needs from its store. */
export interface LeaseContext {
  runId: string;
  /** The store's folder (so a store tells its own leases from another folder's without building paths). */
  storeDir: string;
  files: RunFiles;
  now: () => number;
  /** Flush a claim and the seals it takes (the store's fsync policy is not `off`). */
  fsync: boolean;
  seal: SealOptions;
}

const LEASE_FILE = 'lease.json';
const TAKEOVER_ATTEMPTS = 4;
/** Fenced folders kept besides the current one (older ones hold nothing anyone reads). */
const FENCED_KEPT = 2;

function isLeaseFile(value: unknown): value is LeaseFile {
  const lease = value as Partial<LeaseFile> | null;
  return (
    typeof lease === 'object' &&
    lease !== null &&
    typeof lease.owner === 'string' &&
    typeof lease.token === 'string' &&
    typeof lease.pid === 'number' &&
    typeof lease.host === 'string' &&
    typeof lease.expiresAt === 'number' &&
    (lease.released === undefined || typeof lease.released === 'boolean')
  );
}

/**
 * The lease file at `path`, undefined when there is none. It only ever appears whole (written to
 * a temp file and renamed in), so one that holds no lease was damaged afterwards: refused, not
 * taken over, since the run may well be running.
 */
function readLease(path: string): LeaseFile | undefined {
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
  return lease;
}

function damagedLease(path: string, cause?: unknown): RunStoreCorruptError {
  return new RunStoreCorruptError(
    path,
    'holds no lease (it is written whole, so it was damaged afterwards). Make sure no process is running this run, then delete it to clear the lease.',
    cause === undefined ? undefined : { cause },
  );
}

/** Whether a lease still holds: not released, not expired, and not of a process on this host that is gone. */
function isLive(lease: LeaseFile, now: number): boolean {
  if (lease.released === true || lease.expiresAt <= now) return false;
  return !holderIsGone(lease);
}

/** Who holds the run's lease now, for the error that tells a fenced writer. */
export function currentHolder(files: RunFiles): { owner: string | undefined; expiresAt: number | undefined } {
  try {
    const generations = listGenerations(files);
    const lease = generations.started ? readLease(join(holderFolder(files, generations.newest), LEASE_FILE)) : undefined;
    return lease === undefined || lease.released === true ? { owner: undefined, expiresAt: undefined } : { owner: lease.owner, expiresAt: lease.expiresAt };
  } catch {
    // Only the message depends on it.
    return { owner: undefined, expiresAt: undefined };
  }
}

/** The generation whose lease has `token`, if it is the run's current, unreleased lease. */
export function generationOfToken(files: RunFiles, token: string): number | undefined {
  const generations = listGenerations(files);
  if (!generations.started) return undefined;
  const lease = readLease(join(holderFolder(files, generations.newest), LEASE_FILE));
  return lease !== undefined && lease.token === token && lease.released !== true ? generations.newest : undefined;
}

/**
 * Claims generation `generation`: its folder is built whole under a temp name (`lease.json`
 * inside) and renamed into place. Renaming a folder onto a folder that is not empty fails, so of
 * two processes claiming the same number exactly one wins; false for the other. The first claim
 * creates `holders/` itself that way, which is what closes generation 0.
 */
function claim(files: RunFiles, first: boolean, generation: number, lease: LeaseFile, fsync: boolean): boolean {
  const temp = first ? join(files.dir, `.holders.${randomUUID()}.tmp`) : join(files.holders, `.claim.${randomUUID()}.tmp`);
  const folder = first ? join(temp, String(generation)) : temp;
  try {
    mkdirSync(folder, { recursive: true, mode: PRIVATE_DIR_MODE });
    const fd = openSync(join(folder, LEASE_FILE), 'wx', PRIVATE_FILE_MODE);
    try {
      writeAllSync(fd, Buffer.from(JSON.stringify(lease), 'utf8'));
      if (fsync) fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temp, first ? files.holders : holderFolder(files, generation));
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || (code === 'EPERM' && existsSync(first ? files.holders : holderFolder(files, generation)))) return false;
    throw error;
  }
  if (fsync) syncDirectory(first ? files.dir : files.holders);
  return true;
}

/** Fences and seals what the claim of `generation` took over, and drops fenced folders nobody needs. */
function finishTakeover(context: LeaseContext, generation: number): void {
  const generations = listGenerations(context.files);
  sealEarlierGenerations(context.files, generations, context.seal);
  for (const old of generations.fenced) {
    if (old < generation - FENCED_KEPT) rmSync(fencedFolder(context.files, old), { recursive: true, force: true });
  }
}

/**
 * A lease on one run: generation `generation` of its holders (see holder-layout.ts). The store
 * maps a fence to its generation through this object, so a write under it goes to that
 * generation's files and is checked against that generation's folder.
 */
export class FileLease implements Lease {
  private releasedHere = false;

  constructor(
    private readonly context: LeaseContext,
    readonly generation: number,
    private held: LeaseFile,
    private readonly ttlMs: number,
  ) {}

  get runId(): string {
    return this.context.runId;
  }

  get owner(): string {
    return this.held.owner;
  }

  get token(): string {
    return this.held.token;
  }

  get expiresAt(): number {
    return this.held.expiresAt;
  }

  /** Whether this is the lease of run `runId` in the store folder `storeDir`. */
  isOf(storeDir: string, runId: string): boolean {
    return this.context.runId === runId && this.context.storeDir === storeDir;
  }

  /** Whether `release()` was called on this object: its writes are refused from then on. */
  get released(): boolean {
    return this.releasedHere;
  }

  /** The error for `what`, refused because this lease no longer holds. */
  fenced(what: string): RunFencedError {
    return fencedError(this.runId, this, what, currentHolder(this.context.files));
  }

  async renew(): Promise<void> {
    if (this.releasedHere) throw this.fenced('a renewal of its lease (released)');
    const next = { ...this.held, expiresAt: this.context.now() + this.ttlMs };
    const folder = holderFolder(this.context.files, this.generation);
    // The rename fails once the folder is fenced. A newer generation whose taker has not fenced
    // this one yet is seen in the listing: the renewal then landed where no one looks.
    if (!rewriteThroughFolder(folder, join(folder, LEASE_FILE), JSON.stringify(next), false) || listGenerations(this.context.files).newest !== this.generation) {
      throw this.fenced('a renewal of its lease');
    }
    this.held = next;
  }

  async release(): Promise<void> {
    if (this.releasedHere) return;
    this.releasedHere = true;
    const folder = holderFolder(this.context.files, this.generation);
    // Marked, not deleted: generation numbers must keep growing. A lease taken over meanwhile
    // has no folder left to mark, and the new owner's is left alone.
    rewriteThroughFolder(folder, join(folder, LEASE_FILE), JSON.stringify({ ...this.held, released: true }), false);
  }
}

/**
 * Takes the run's lease: a live lease of the same owner is renewed (same generation, same
 * token); another owner's live lease is a `RunLeaseError`; otherwise (none, released, expired,
 * or of a dead process on this host) the next generation is claimed, the previous one fenced and
 * sealed. `takeOver` claims the next generation whoever holds the current one: its holder's writes
 * are refused from then on (an operator's takeover of a holder known dead elsewhere). A damaged
 * lease file is a `RunStoreCorruptError`. Until the first claim, `lease.json` of earlier versions
 * is honoured the same way.
 */
export function acquireFileLease(context: LeaseContext, owner: string, ttlMs: number, takeOver = false): FileLease {
  const { files, now } = context;
  let last: LeaseFile | undefined;
  for (let attempt = 0; attempt < TAKEOVER_ATTEMPTS; attempt += 1) {
    const generations = listGenerations(files);
    const folder = holderFolder(files, generations.newest);
    let current: LeaseFile | undefined;
    if (!generations.started) current = readLease(files.lease);
    else if (generations.unfenced.has(generations.newest)) {
      current = readLease(join(folder, LEASE_FILE));
      // Fenced since the listing: another process took it over; look again.
      if (current === undefined && !existsSync(folder)) continue;
    }
    last = current;
    if (!takeOver && current !== undefined && isLive(current, now())) {
      if (current.owner !== owner) throw new RunLeaseError(context.runId, current.owner, current.expiresAt);
      if (generations.started) {
        const renewed: LeaseFile = { owner: current.owner, token: current.token, ...localProcesses.self(), expiresAt: now() + ttlMs };
        if (!rewriteThroughFolder(folder, join(folder, LEASE_FILE), JSON.stringify(renewed), false)) continue;
        return new FileLease(context, generations.newest, renewed, ttlMs);
      }
    }
    const lease: LeaseFile = { owner, token: randomUUID(), ...localProcesses.self(), expiresAt: now() + ttlMs };
    const generation = generations.newest + 1;
    if (!claim(files, !generations.started, generation, lease, context.fsync)) continue;
    if (!generations.started) rmSync(files.lease, { force: true });
    finishTakeover(context, generation);
    return new FileLease(context, generation, lease, ttlMs);
  }
  throw new RunLeaseError(context.runId, last?.owner, last?.expiresAt);
}
