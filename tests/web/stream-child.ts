// Child process for the stream tests (run with `node --import tsx`), on the journal store in <dir>:
//   start <dir> <runId>    runs the research run (slow answers) until it ends or is killed
//   resume <dir> <runId>   resumes it (fast answers), as a server started after a crash would
// Both run the same compiled code, as two server processes of one deployment do: a step's
// fingerprint covers its code, so a resume must run what the run started with.
import { resume } from 'groundswell';
import { JournalRunStore, type RunStore } from 'groundswell/durable';
import { researchRun } from './stream-run.js';

const [mode, dir, runId] = process.argv.slice(2);
if (dir === undefined || runId === undefined) throw new Error('usage: stream-child start|resume <dir> <runId>');
const store = new JournalRunStore({ dir });
process.stdout.write('ready\n');
if (mode === 'start') {
  await researchRun(store, runId, 150).run();
} else {
  const workflows = { research: (_input: unknown, context: { store: RunStore; runId: string }) => researchRun(context.store, context.runId, 0) };
  await resume(runId, { store, workflows });
}
process.stdout.write('finished\n');
await store.close();
