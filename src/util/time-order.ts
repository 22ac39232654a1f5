import type { WorkflowEvent } from '../types/events.js';

// A missing or non-finite field (a hand-written export) sorts last rather than breaking the order.
function key(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : Number.MAX_VALUE;
}

/** Orders two events by when they happened: timestamp, then id (ids are unique, so the order is total). */
export function compareEventTime(a: WorkflowEvent, b: WorkflowEvent): number {
  return key(a.timestamp) - key(b.timestamp) || key(a.id) - key(b.id);
}

/** Whether `events` are in time order already (one pass, so the common case costs no sort). */
export function isInTimeOrder(events: readonly WorkflowEvent[]): boolean {
  for (let i = 1; i < events.length; i += 1) {
    if (compareEventTime(events[i - 1] as WorkflowEvent, events[i] as WorkflowEvent) > 0) return false;
  }
  return true;
}

/**
 * `events` in the order they happened: the same array when it is in that order already, else a
 * sorted copy (the input is never changed). Events relayed from another process arrive out of
 * that order; their ids, which say the arrival order, stay as they are.
 */
export function inTimeOrder<E extends WorkflowEvent>(events: readonly E[]): readonly E[] {
  return isInTimeOrder(events) ? events : [...events].sort(compareEventTime);
}
