import type { FileHandle } from 'node:fs/promises';
import type { CallBudget } from './call-budget.js';

/** Reads are done in chunks this size, so the budget and abort are checked often and memory stays small. */
export const CHUNK_BYTES = 64 * 1024;

/**
 * Reads at most `max` bytes from the start of an open file, charging them to `budget`; stops early
 * at end of file or when the budget runs out. The size from `stat` is never trusted: a file can
 * grow while it is read, so the cap is on bytes actually read.
 */
export async function readUpTo(handle: FileHandle, max: number, budget: CallBudget): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let total = 0;
  while (total < max && budget.ok()) {
    const want = Math.min(CHUNK_BYTES, max - total, budget.remainingBytes());
    const buffer = Buffer.allocUnsafe(want);
    const { bytesRead } = await handle.read(buffer, 0, want, total);
    if (bytesRead === 0) break;
    budget.spend(bytesRead);
    chunks.push(bytesRead === want ? buffer : buffer.subarray(0, bytesRead));
    total += bytesRead;
  }
  return Buffer.concat(chunks, total);
}

/**
 * The first `max` bytes (or fewer) of an open file, for sniffing. Not charged to a budget: it is a
 * small fixed read, and the same bytes are read (and charged) again by whatever reads the file.
 */
export async function readHead(handle: FileHandle, max: number): Promise<Buffer> {
  const buffer = Buffer.alloc(max);
  const { bytesRead } = await handle.read(buffer, 0, max, 0);
  return buffer.subarray(0, bytesRead);
}

/** A NUL byte near the start is the usual sign of a binary file, whose bytes would only waste the judge's context. */
export function looksBinary(head: Buffer): boolean {
  return head.includes(0);
}
