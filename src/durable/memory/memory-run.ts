import type { RunRecord } from '../store/run-record.js';
import { MemoryLeaseSlot } from './memory-lease.js';

/**
 * One run as the memory store keeps it. Values are kept as the JSON text `encodeJson` made of
 * them while checking them: a caller can change nothing stored, and each read parses a fresh copy.
 */
export interface MemoryRun {
  /** The record, parsed from `runText`; never handed out (listing filters on it). */
  run: RunRecord;
  runText: string;
  /** By key, in the order written (a Map keeps insertion order). */
  steps: Map<string, string>;
  calls: Map<string, string>;
  signals: string[];
  /** By name, the latest value. */
  data: Map<string, string>;
  tree?: string;
  /** Event `seq` is its index + 1. */
  events: string[];
  lease: MemoryLeaseSlot;
}

/** A run holding only its record (`runText` is its JSON), with a free lease on the store's clock. */
export function newMemoryRun(runText: string, now: () => number): MemoryRun {
  const run = JSON.parse(runText) as RunRecord;
  return { run, runText, steps: new Map(), calls: new Map(), signals: [], data: new Map(), events: [], lease: new MemoryLeaseSlot(run.id, now) };
}
