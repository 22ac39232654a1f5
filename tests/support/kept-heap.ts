import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

// A forced collection without a command-line flag: the flag set now, `gc` read from a fresh context.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * Heap kept per item by `batch()`, which makes `items` of something that stays alive: measured
 * over `batches` batches after forced collections, the smallest taken. Whatever else the process
 * keeps meanwhile (compiled code, the test runner's own objects) only ever adds to a batch.
 * `beforeBatch` runs before each measure (to drop what the test itself records).
 */
export async function keptBytesPerItem(items: number, batches: number, batch: () => Promise<void>, beforeBatch?: () => void): Promise<number> {
  const perItem: number[] = [];
  for (let i = 0; i < batches; i += 1) {
    beforeBatch?.();
    gc();
    gc();
    const before = process.memoryUsage().heapUsed;
    await batch();
    gc();
    gc();
    perItem.push((process.memoryUsage().heapUsed - before) / items);
  }
  return Math.min(...perItem);
}
