// Child process for the journal store tests (run under tsx):
//   append <dir> <runId>                      put steps and events in a loop until killed
//   lease <dir> <runId> <owner> <startAt>     at startAt (epoch ms), take the lease; print the outcome
import { JournalRunStore, RunLeaseError } from 'groundswell/durable';

const [mode, dir, runId, owner, startAt] = process.argv.slice(2);
if (dir === undefined || runId === undefined) throw new Error('usage: journal-child <mode> <dir> <runId> ...');
const store = new JournalRunStore({ dir, fsync: 'off' });

if (mode === 'append') {
  // A value of a few KB, so the kill often lands while a record is being written.
  const payload = 'p'.repeat(4096);
  process.stdout.write('ready\n');
  for (let i = 0; ; i += 1) {
    await store.putStep(runId, { key: `step-${i}`, status: 'completed', value: { i, payload }, at: i });
    await store.appendEvents(runId, [{ type: 'stepEnd', i }]);
  }
} else if (mode === 'lease') {
  const sleepUntil = (at: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));
  const start = Number(startAt);
  if (Date.now() > start) process.stderr.write(`started ${Date.now() - start} ms late\n`);
  await sleepUntil(start);
  try {
    await store.acquireLease(runId, owner ?? 'child', 60_000);
    process.stdout.write('won\n');
  } catch (error) {
    process.stdout.write(error instanceof RunLeaseError ? `refused by ${error.holder ?? '?'}\n` : `error ${String(error)}\n`);
  }
  // Alive until the other process has tried: a dead holder's lease may be taken over.
  await sleepUntil(start + 3_000);
  await store.close();
} else {
  throw new Error(`unknown mode ${mode}`);
}
