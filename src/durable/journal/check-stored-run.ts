import { RUN_STATUSES, type RunRecord, type RunStatus } from '../store/run-record.js';
import { RunStoreCorruptError } from '../store/run-store-errors.js';

/**
 * The run record read from `file` in the folder of run `id`, checked for the fields readers rely
 * on: a record the store did not write (hand-edited, damaged, or another run's) is refused here
 * rather than failing later as a `TypeError` in whatever reads it.
 */
export function checkStoredRun(value: unknown, file: string, id: string): RunRecord {
  const problem = problemOf(value, id);
  if (problem !== undefined) throw new RunStoreCorruptError(file, `${problem} The store writes it whole, so it was changed or damaged afterwards.`);
  return value as RunRecord;
}

function problemOf(value: unknown, id: string): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return `holds ${Array.isArray(value) ? 'an array' : String(JSON.stringify(value)).slice(0, 40)}, not a run record.`;
  }
  const run = value as Record<string, unknown>;
  if (typeof run.id !== 'string') return 'has no run id.';
  if (run.id !== id) return `is the record of run ${JSON.stringify(run.id.slice(0, 200))}, not of "${id}" whose folder holds it.`;
  if (typeof run.rootName !== 'string' || run.rootName === '') return 'has no rootName.';
  if (!RUN_STATUSES.includes(run.status as RunStatus)) return 'has no valid status.';
  for (const field of ['createdAt', 'updatedAt'] as const) {
    if (typeof run[field] !== 'number' || !Number.isFinite(run[field])) return `has no ${field} time.`;
  }
  if (run.codeVersion !== undefined && typeof run.codeVersion !== 'string') return 'has a codeVersion that is not a string.';
  for (const field of ['error', 'usage', 'waitingFor'] as const) {
    const part = run[field];
    if (part !== undefined && (typeof part !== 'object' || part === null || Array.isArray(part))) return `has a ${field} that is not an object.`;
  }
  if (run.waitingFor !== undefined && typeof (run.waitingFor as { name?: unknown }).name !== 'string') return 'has a waitingFor without a signal name.';
  return undefined;
}
