// DBOS Transact: one registered workflow of STEPS DBOS.runStep calls; DBOS records each step's
// result in its system database (PostgreSQL) before the workflow goes on.
import { DBOS } from '@dbos-inc/dbos-sdk';
import { DATABASE_URL, STEPS, newRunId, serve, stepResult } from './common.mjs';

DBOS.setConfig({ name: 'peers-bench', systemDatabaseUrl: DATABASE_URL, logLevel: 'warn' });

const workflow = DBOS.registerWorkflow(
  async (steps) => {
    let last;
    for (let i = 0; i < steps; i += 1) last = await DBOS.runStep(async () => stepResult(i), { name: 'step' });
    return last;
  },
  { name: 'peerBench' },
);

await DBOS.launch();

async function runOnce() {
  const handle = await DBOS.startWorkflow(workflow, { workflowID: newRunId() })(STEPS);
  return handle.getResult();
}

await serve({ runOnce, close: () => DBOS.shutdown() });
