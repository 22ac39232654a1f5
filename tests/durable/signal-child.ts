// Child process for the concurrent-signal test (run with `node --import tsx`):
//   signal-child <dir> <runId> <writer> <count> <maxBytes>
// Waits for <dir>/go, then sends <count> signals whose values grow up to <maxBytes>, printing
// "acked <n>" after each signal() resolved, so the parent knows what was acknowledged.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { JournalRunStore } from '../../src/durable/journal/journal-store.js';

const [dir, runId, writer, countText, maxText] = process.argv.slice(2);
if (dir === undefined || runId === undefined || writer === undefined) throw new Error('usage: signal-child <dir> <runId> <writer> <count> <maxBytes>');
const count = Number(countText);
const max = Number(maxText);
const store = new JournalRunStore({ dir, fsync: 'off' });
process.stdout.write('ready\n');
while (!existsSync(join(dir, 'go'))) await new Promise((resolve) => setTimeout(resolve, 2));
for (let i = 0; i < count; i += 1) {
  // Sizes spread from small to `max`, so short and long writes overlap between processes.
  const size = Math.max(16, Math.floor((max * ((i * 7919) % count)) / Math.max(1, count - 1)));
  await store.putSignal(runId, { name: `from-${writer}`, value: { writer, i, pad: writer.repeat(size) }, at: i });
  process.stdout.write(`acked ${i}\n`);
}
await store.close();
