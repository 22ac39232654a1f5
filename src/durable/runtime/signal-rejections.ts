import type { SignalRecord } from '../store/stored-records.js';

/**
 * `signal()` calls waiting, in this process, to hear whether the resume they started refused
 * their value (keyed by the signal's own id, so nothing outlives the call that registered it).
 */
const listeners = new Map<string, (reason: string) => void>();

/** Hears a refusal of the signal `id` until the returned function is called. */
export function onSignalRejected(id: string, listener: (reason: string) => void): () => void {
  listeners.set(id, listener);
  return () => listeners.delete(id);
}

/** A resumed wait refused `signal` (its value does not fit the wait's schema). */
export function signalRejected(_runId: string, signal: SignalRecord, reason: string): void {
  if (signal.id !== undefined) listeners.get(signal.id)?.(reason);
}
