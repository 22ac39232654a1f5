// Child process for the journal store tests (run under tsx):
//   append <dir> <runId>                      put steps and events in a loop until killed
//   lease <dir> <runId> <owner>               take the lease when <dir>/go appears; print the outcome
import { JournalRunStore, RunLeaseError } from 'groundswell/durable';

const [mode, dir, runId, owner] = process.argv.slice(2);
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
  // A barrier through files: say "ready", take the lease once <dir>/go exists, print the outcome,
  // and stay alive until <dir>/done exists (a dead holder's lease may be taken over).
  const { existsSync } = await import('node:fs');
  const { join } = await import('node:path');
  const waitFor = async (file: string): Promise<void> => {
    while (!existsSync(join(dir, file))) await new Promise((resolve) => setTimeout(resolve, 1));
  };
  process.stdout.write('ready\n');
  await waitFor('go');
  try {
    await store.acquireLease(runId, owner ?? 'child', 60_000);
    process.stdout.write('won\n');
  } catch (error) {
    process.stdout.write(error instanceof RunLeaseError ? `refused by ${error.holder ?? '?'}\n` : `error ${String(error)}\n`);
  }
  await waitFor('done');
  await store.close();
} else {
  throw new Error(`unknown mode ${mode}`);
}
