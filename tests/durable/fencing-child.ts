// Child process for tests/durable/journal-fencing.test.ts (run under tsx): the second holder, P2.
//   <dir> <runId>   takes the run's lease as "p2" with a clock 10 minutes ahead (the first holder's
//                   lease has lapsed for it), loads the run, settles two steps, stores data and a
//                   tree and completes the run, every write under its lease; prints what it loaded.
import { JournalRunStore } from 'groundswell/durable';

const [dir, runId] = process.argv.slice(2);
if (dir === undefined || runId === undefined) throw new Error('usage: fencing-child <dir> <runId>');
const store = new JournalRunStore({ dir, fsync: 'off', clock: { now: () => Date.now() + 600_000 } });
const lease = await store.acquireLease(runId, 'p2', 60_000);
const loaded = await store.loadRun(runId);
const settled = await store.settleStep(runId, { key: 'p2#0', status: 'completed', value: 'p2', at: 1 }, [{ by: 'p2' }], lease);
await store.putStep(runId, { key: 'p2#1', status: 'completed', value: 'p2', at: 2 }, lease);
await store.putData(runId, 'plan', 'p2', lease);
await store.putTree(runId, { by: 'p2' }, lease);
await store.updateRun(runId, { status: 'completed', result: 'p2' }, lease);
await store.close();
process.stdout.write(`${JSON.stringify({ steps: loaded.steps.map((step) => step.key), events: settled.events })}\n`);
