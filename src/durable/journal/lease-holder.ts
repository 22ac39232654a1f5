import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LeaseHolder } from '../store/run-store.js';
import { RunStoreCorruptError } from '../store/run-store-errors.js';
import { holderIsGone, parseHolderProcess } from '../store/holder-process.js';
import { readFileNoFollowSync } from './no-follow.js';

const GENERATION = /^([1-9]\d{0,14})(?:\.fenced)?$/;

/**
 * The lease file that says who holds the run in folder `dir`: `lease.json` in the newest
 * generation's folder under `holders/` once generations were claimed, else `lease.json` beside
 * the journals. Undefined when the newest generation was fenced (nobody holds it).
 */
function leaseFile(dir: string): string | undefined {
  const holders = join(dir, 'holders');
  if (!existsSync(holders)) return join(dir, 'lease.json');
  let newest = 0;
  for (const name of readdirSync(holders)) {
    const generation = Number(GENERATION.exec(name)?.[1] ?? 0);
    if (generation > newest) newest = generation;
  }
  const folder = join(holders, String(newest));
  return newest > 0 && existsSync(folder) ? join(folder, 'lease.json') : undefined;
}

/**
 * Who holds the lease of the run in folder `dir`, read only (the store's lease code writes it);
 * undefined when nobody does. A holder on this host whose process is gone is `exited` at once,
 * as a resume would find it.
 */
export function readLeaseHolder(dir: string, now: number): LeaseHolder | undefined {
  const path = leaseFile(dir);
  if (path === undefined) return undefined;
  let text: string;
  try {
    text = readFileNoFollowSync(path).toString('utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let lease: { owner?: unknown; expiresAt?: unknown; released?: unknown } | null;
  try {
    lease = JSON.parse(text) as typeof lease;
  } catch (error) {
    throw new RunStoreCorruptError(path, 'holds no lease (it is written whole, so it was damaged afterwards).', { cause: error });
  }
  if (typeof lease?.owner !== 'string' || typeof lease.expiresAt !== 'number') {
    throw new RunStoreCorruptError(path, 'holds no lease (it is written whole, so it was damaged afterwards).');
  }
  if (lease.released === true) return undefined;
  const { owner, expiresAt } = lease;
  if (expiresAt <= now) return { owner, expiresAt, state: 'expired' };
  const holder = parseHolderProcess(lease);
  const gone = holder !== undefined && holderIsGone(holder);
  return { owner, expiresAt, state: gone ? 'exited' : 'alive' };
}
