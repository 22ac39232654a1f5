/**
 * W13: the cost of a budget. `agent.prompt()` inside a step of a workflow whose root has a budget
 * on every metered limit (dollars, tokens, requests), against the same calls in the same kind of
 * workflow without one. Both use W6's scripted model and prompt, runs interleaved round by round.
 * The budget's limits are far above what the calls use, so every request reserves, settles and
 * is checked against the ledger, and none is refused.
 * Target: with the root budget ≤ 1.1× without it.
 */
import { createAgent, createPrompt, createWorkflow, type Budget } from 'groundswell';
import { ScriptedModel } from 'groundswell/testing';
import { ANSWER_STEP, makeTriageSchema, MODEL, SYSTEM, TICKET_DATA, USER } from './agent-fixtures.js';
import { fixed2, fmtUs, measureInterleaved, recordRatio, section, table } from './harness.js';

const CALLS = 1_000;
/** With a root budget ≤ 1.1× without one. */
const TARGET_RATIO = 1.1;
const BUDGET: Budget = { usd: 1_000_000, tokens: 1_000_000_000_000, modelRequests: 1_000_000_000 };

export async function runW13(): Promise<void> {
  section('W13  a budget on the root: agent.prompt() in a step of a budgeted workflow vs the same without a budget (scripted model)');
  const prompt = createPrompt({ user: USER, data: TICKET_DATA, responseFormat: makeTriageSchema() });
  const run = (budget: Budget | undefined) => async (): Promise<void> => {
    // A fresh scripted model per run: it keeps every request it was sent.
    const model = new ScriptedModel(() => ANSWER_STEP);
    const agent = createAgent({
      name: 'triage',
      client: model.client(),
      system: SYSTEM,
      model: MODEL,
      enableCache: false,
      pricing: { [MODEL]: { inputPerMTok: 3, outputPerMTok: 15 } },
    });
    const wf = createWorkflow({ name: 'w13', ...(budget !== undefined ? { budget } : {}) }, (ctx) =>
      ctx.step('calls', async () => {
        for (let i = 0; i < CALLS; i += 1) await agent.prompt(prompt);
      }),
    );
    await wf.run();
    if (model.requests.length !== CALLS) throw new Error(`W13: expected ${CALLS} requests, got ${model.requests.length}`);
  };
  const [budgeted, plain] = await measureInterleaved([run(BUDGET), run(undefined)]);
  if (budgeted === undefined || plain === undefined) throw new Error('W13: missing measurements');
  const ratio = budgeted.medianNs / plain.medianNs;
  console.log(
    table(
      ['variant', 'median/call', 'min/call', 'vs no budget', 'target', 'status'],
      [
        ['FLOOR: agent.prompt() in a step, no budget', fmtUs(plain.medianNs / CALLS), fmtUs(plain.minNs / CALLS), '1.00x', '-', '-'],
        [
          'agent.prompt() in a step, root budget on usd, tokens, requests',
          fmtUs(budgeted.medianNs / CALLS),
          fmtUs(budgeted.minNs / CALLS),
          `${fixed2(ratio)}x`,
          `≤ ${fixed2(TARGET_RATIO)}x`,
          recordRatio('W13', 'agent.prompt() under a root budget vs without', ratio, TARGET_RATIO),
        ],
      ],
      ['left', 'right', 'right', 'right', 'right', 'left'],
    ),
  );
  console.log(`  (median of the interleaved rounds, ${CALLS.toLocaleString('en-US')} sequential awaited calls per run, one workflow per run)`);
}
