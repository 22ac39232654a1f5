import { requireStatus } from './record-input.js';
import type { RunPatch, RunRecord } from './run-record.js';

const CLEARABLE = ['error', 'waitingFor', 'usage', 'codeVersion'] as const;

/** The run after `patch` (see `RunPatch`): a new object, `updatedAt` = `now`. */
export function applyRunPatch(run: RunRecord, patch: RunPatch, now: number): RunRecord {
  const next: RunRecord = { ...run, updatedAt: now };
  if (patch.status !== undefined) next.status = requireStatus(patch.status);
  if (patch.result !== undefined) next.result = patch.result;
  for (const field of CLEARABLE) {
    const value = patch[field];
    if (value === null) delete next[field];
    else if (value !== undefined) (next as unknown as Record<string, unknown>)[field] = value;
  }
  return next;
}
