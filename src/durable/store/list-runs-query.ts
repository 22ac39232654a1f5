import { UsageError } from '../../errors/groundswell-error.js';
import { requireStatus } from './record-input.js';
import type { RunRecord, RunStatus } from './run-record.js';
import type { ListRunsQuery } from './run-store.js';

/** The statuses a query asks for (checked), or undefined for all. */
export function queryStatuses(query: ListRunsQuery): RunStatus[] | undefined {
  if (query.status === undefined) return undefined;
  const statuses = typeof query.status === 'string' ? [query.status] : query.status;
  if (!Array.isArray(statuses)) throw new UsageError('listRuns status must be a status or an array of statuses.');
  return statuses.map(requireStatus);
}

export function matchesQuery(run: RunRecord, query: ListRunsQuery): boolean {
  const statuses = queryStatuses(query);
  if (statuses !== undefined && !statuses.includes(run.status)) return false;
  return query.rootName === undefined || run.rootName === query.rootName;
}
