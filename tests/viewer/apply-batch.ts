import { expect } from 'vitest';
import type { TreeChanges } from '../../src/viewer/stream-messages.js';
import type { WireRow } from '../../src/viewer/wire-row.js';

/**
 * Applies a batch as the page does: removals first, then each row in order. The page lists a row
 * under its parent as it arrives, so a parent must be there already (held, or earlier in the batch).
 */
export function applyBatch(page: Map<string, WireRow>, changes: TreeChanges, context: string): void {
  if (changes.removed === 'all') page.clear();
  else for (const id of changes.removed) page.delete(id);
  for (const row of changes.upserted) {
    if (row[1] !== null) expect(page.has(row[1]), `${context}: ${row[0]} came before its parent ${row[1]}`).toBe(true);
    page.set(row[0], row);
  }
}
