/**
 * W13: the cost of a budget. `agent.prompt()` inside a step of a workflow whose root has a budget
 * on every metered limit (dollars, tokens, requests), against the same calls in the same kind of
 * workflow without one. Both use W6's scripted model and prompt, and the same agent. The two
 * workflows run side by side, each step making one call when asked, so the calls alternate call by
 * call and the host's stalls are left out as in W6 (call-pairs.ts). The budget's limits are far
 * above what the calls use, so every request reserves, settles and is checked against the ledger,
 * and none is refused.
 * Target: with the root budget ≤ 1.1× without it.
 */
import { createAgent, createPrompt, createWorkflow, type Agent, type Budget, type Prompt } from 'groundswell';
import { ScriptedModel } from 'groundswell/testing';
import { ANSWER_STEP, makeTriageSchema, MODEL, SYSTEM, TICKET_DATA, USER } from './agent-fixtures.js';
import { alternate, callPairs, STALL_FACTOR, type CallPairs } from './call-pairs.js';
import { forceGc, int, section, table } from './harness.js';
import { jobQueue } from './job-queue.js';
import { pairRows } from './pair-rows.js';

const CALLS = 1_000;
const WARMUP = 1;
const RUNS = 9;
/** With a root budget ≤ 1.1× without one. */
const TARGET_RATIO = 1.1;
const BUDGET: Budget = { usd: 1_000_000, tokens: 1_000_000_000_000, modelRequests: 1_000_000_000 };

/** A running workflow whose one step makes an agent call each time `call()` asks, until `stop()`. */
interface CallServer {
  call(): Promise<void>;
  stop(): Promise<void>;
}

function callServer(name: string, agent: Agent, prompt: Prompt<unknown>, budget: Budget | undefined): CallServer {
  const queue = jobQueue<void>();
  const wf = createWorkflow({ name, ...(budget !== undefined ? { budget } : {}) }, (ctx) => ctx.step('calls', () => queue.serve()));
  const running = wf.run();
  const oneCall = (): Promise<unknown> => agent.prompt(prompt);
  return {
    call: () => queue.run(oneCall),
    async stop() {
      queue.close();
      await running;
    },
  };
}

/** WARMUP + RUNS rounds, each on a fresh scripted model and agent after a forced GC: CALLS pairs. */
async function paired(prompt: Prompt<unknown>): Promise<CallPairs> {
  const pairs = callPairs();
  for (let round = 0; round < WARMUP + RUNS; round += 1) {
    // A fresh scripted model per round: it keeps every request it was sent.
    const model = new ScriptedModel(() => ANSWER_STEP);
    const agent = createAgent({
      name: 'triage',
      client: model.client(),
      system: SYSTEM,
      model: MODEL,
      enableCache: false,
      pricing: { [MODEL]: { inputPerMTok: 3, outputPerMTok: 15 } },
    });
    const budgeted = callServer('w13-budget', agent, prompt, BUDGET);
    const plain = callServer('w13-plain', agent, prompt, undefined);
    forceGc();
    await alternate(CALLS, budgeted.call, plain.call, round >= WARMUP ? pairs : undefined);
    await Promise.all([budgeted.stop(), plain.stop()]);
    if (model.requests.length !== 2 * CALLS) throw new Error(`W13: a round made ${model.requests.length} requests, expected ${2 * CALLS}`);
  }
  return pairs;
}

export async function runW13(): Promise<void> {
  section('W13  a budget on the root: agent.prompt() in a step of a budgeted workflow vs the same without a budget (scripted model)');
  const prompt = createPrompt({ user: USER, data: TICKET_DATA, responseFormat: makeTriageSchema() });
  const pairs = await paired(prompt);
  const { rows, stalls } = pairRows('W13', [
    {
      where: 'under a root budget on usd, tokens, requests',
      pairs,
      floor: 'agent.prompt() in a step, no budget',
      gate: { measurement: 'agent.prompt() under a root budget vs without', target: TARGET_RATIO },
    },
  ]);
  console.log(
    table(['variant', 'median/call', 'vs no budget', 'all calls (info)', 'target', 'status'], rows, ['left', 'right', 'right', 'right', 'right', 'left']),
  );
  console.log(
    `  (${RUNS} rounds after ${WARMUP} warm-up, each on a fresh ScriptedModel and agent; two workflows run side by side, one with\n` +
      `   the budget on its root, and their steps' ${int(CALLS)} calls each alternate call by call; "vs no budget" = total budgeted time /\n` +
      `   total plain time, each side without as many of its slowest GC-free calls as the floor had calls over ${STALL_FACTOR}x its median\n` +
      `   with no GC pause in them (the host's stalls, counted on the floor: the same number dropped from both sides);\n` +
      `   "all calls" keeps every call; ${stalls.join('; ')})`,
  );
}
