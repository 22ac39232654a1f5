// Mastra: a workflow of STEPS steps chained with .then(), on a Mastra instance whose storage is
// PostgresStore. Mastra persists the run's snapshot (status and every step's result so far) in
// its storage after each step, awaited before the next step starts.
import { Mastra } from '@mastra/core';
import { createStep, createWorkflow } from '@mastra/core/workflows';
import { PostgresStore } from '@mastra/pg';
import { z } from 'zod';
import { DATABASE_URL, STEPS, VARIANT, serve, stepResult, newRunId } from './common.mjs';

if (VARIANT !== 'pg') throw new Error(`unknown variant ${VARIANT}`);

let flow = createWorkflow({ id: 'peer-bench', inputSchema: z.object({}), outputSchema: z.any() });
for (let i = 0; i < STEPS; i += 1) {
  flow = flow.then(createStep({ id: `step-${i}`, inputSchema: z.any(), outputSchema: z.any(), execute: async () => stepResult(i) }));
}
const workflow = flow.commit();

const storage = new PostgresStore({ id: 'peers-bench', connectionString: DATABASE_URL });
const mastra = new Mastra({ workflows: { peerBench: workflow }, storage, logger: false });

async function runOnce() {
  const run = await mastra.getWorkflow('peerBench').createRun({ runId: newRunId() });
  const out = await run.start({ inputData: {} });
  if (out.status !== 'success') throw new Error(`run ended ${out.status}: ${JSON.stringify(out.error ?? '').slice(0, 300)}`);
  return out.result;
}

await serve({ runOnce, close: async () => storage.close?.() });
