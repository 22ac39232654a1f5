import { UsageError } from '../errors/groundswell-error.js';

/** Where a chunk id (`12`, `12.3`) stands: the event's number, then the chunk's place among its chunks. */
export interface ChunkCursor {
  readonly seq: number;
  readonly index: number;
}

const CHUNK_ID = /^(\d{1,15})(?:\.(\d{1,6}))?$/;

/** The cursor of `id` (a chunk id this package wrote); a `UsageError` for anything else. */
export function parseChunkId(id: string): ChunkCursor {
  const match = CHUNK_ID.exec(id.trim());
  if (match === null) throw new UsageError(`"${id.slice(0, 40)}" is not a chunk id of a run's stream (they read like "12" or "12.3").`);
  return { seq: Number(match[1]), index: match[2] === undefined ? 0 : Number(match[2]) };
}

/** True when chunk `id` comes after `cursor` (every chunk does when there is none). */
export function isAfter(id: string, cursor: ChunkCursor | undefined): boolean {
  if (cursor === undefined) return true;
  const at = parseChunkId(id);
  return at.seq > cursor.seq || (at.seq === cursor.seq && at.index > cursor.index);
}
