/**
 * W6: framework overhead of one `agent.prompt()` (no cache, native structured output) against the
 * scripted model, vs calling the same SDK client's `messages.create` directly with the very same
 * request body. Both go through the real Anthropic SDK and the same ScriptedModel responder
 * (which answers with the same JSON), so the difference is what groundswell adds: settings,
 * request plan, interceptors, tree node and events, answer parsing and zod validation.
 * Measured outside any workflow and inside a workflow step, agent and floor alternating call by
 * call, the host's stalls left out (call-pairs.ts).
 * Floor: the direct messages.create(); target: inside a workflow ≤ 1.15× the floor.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { isDeepStrictEqual } from 'node:util';
import { createAgent, createPrompt, createWorkflow, type Agent, type Prompt, type WorkflowObserver } from 'groundswell';
import { ScriptedModel } from 'groundswell/testing';
import { ANSWER_STEP, dataBytes, makeTriageSchema, MODEL, SYSTEM, TICKET_DATA, TRIAGE_ANSWER, USER, type TriageSchema } from './agent-fixtures.js';
import { alternate, callPairs, STALL_FACTOR, type CallPairs } from './call-pairs.js';
import { fmtBytes, fmtUs, forceGc, int, measure, section, table, type Measurement } from './harness.js';
import { pairRows } from './pair-rows.js';

const CALLS = 1_000;
const WARMUP = 1;
const RUNS = 9;
/** agent.prompt() inside a workflow ≤ 1.15× a direct messages.create() (the floor). */
const TARGET_RATIO = 1.15;

type Answer = ReturnType<TriageSchema['parse']>;

function newAgent(model: ScriptedModel): Agent {
  return createAgent({ name: 'triage', client: model.client(), system: SYSTEM, model: MODEL });
}

interface Fixture {
  schema: TriageSchema;
  prompt: Prompt<Answer>;
  /** The body the agent sends, captured from one agent call: what the direct calls send too. */
  params: MessageCreateParamsNonStreaming;
}

async function fixture(): Promise<Fixture> {
  const schema = makeTriageSchema();
  const prompt = createPrompt({ user: USER, data: TICKET_DATA, responseFormat: schema });
  const model = new ScriptedModel(() => ANSWER_STEP);
  const answer = await newAgent(model).prompt(prompt);
  if (!isDeepStrictEqual(answer, TRIAGE_ANSWER)) throw new Error('W6: the agent returned a different answer');
  const sent = model.requests[0];
  if (model.requests.length !== 1 || sent === undefined) throw new Error(`W6: expected 1 request, got ${model.requests.length}`);
  return { schema, prompt, params: sent.body as MessageCreateParamsNonStreaming };
}

/**
 * WARMUP + RUNS rounds, each on a fresh scripted model (recorded requests do not pile up) after a
 * forced GC: CALLS agent calls and CALLS direct `messages.create()` calls with the very same body,
 * alternating call by call (see call-pairs.ts). Inside a workflow (`signal` given) the agent sends
 * every request with the run's cancellation signal, so the floor is the same call written by hand
 * with that same signal (decision 0060). Checks every call reached the model with the same body.
 */
async function paired({ prompt, params }: Fixture, expectedBody: string, signal?: AbortSignal): Promise<CallPairs> {
  const pairs = callPairs();
  const options = signal === undefined ? undefined : { signal };
  for (let round = 0; round < WARMUP + RUNS; round += 1) {
    const model = new ScriptedModel(() => ANSWER_STEP);
    const agent = newAgent(model);
    const client = model.client();
    forceGc();
    await alternate(
      CALLS,
      () => agent.prompt(prompt),
      () => client.messages.create(params, options),
      round >= WARMUP ? pairs : undefined,
    );
    if (model.requests.length !== 2 * CALLS) throw new Error(`W6: a round made ${model.requests.length} requests, expected ${2 * CALLS}`);
    if (round === 0 && model.requests.slice(0, 2).some((request) => request.rawBody !== expectedBody)) {
      throw new Error('W6: the floor sent a different request body than the agent');
    }
  }
  return pairs;
}

const PARSE_CALLS = 20_000;

/** What any caller of the raw SDK does with the answer anyway: JSON.parse the text, validate it. */
async function parseAndValidate(schema: TriageSchema): Promise<Measurement> {
  const answerText = JSON.stringify(TRIAGE_ANSWER);
  return measure(() => {
    for (let i = 0; i < PARSE_CALLS; i += 1) {
      if (!schema.safeParse(JSON.parse(answerText)).success) throw new Error('W6: the answer did not validate');
    }
  });
}

export async function runW6(): Promise<void> {
  section(
    `W6  framework overhead: agent.prompt() vs the SDK client's messages.create() with the same request, scripted model (${fmtBytes(dataBytes())} data)`,
  );
  const fx = await fixture();
  const expectedBody = JSON.stringify(fx.params);
  const outside = await paired(fx, expectedBody);

  let events = 0;
  const observer: WorkflowObserver = {
    onEvent() {
      events += 1;
    },
  };
  const wf = createWorkflow<CallPairs>('w6-overhead', (ctx) => ctx.step('calls', () => paired(fx, expectedBody, ctx.signal)));
  wf.addObserver(observer);
  const inside = await wf.run();
  const parse = await parseAndValidate(fx.schema);

  const { rows, stalls } = pairRows(
    [
      { where: 'outside a workflow', pairs: outside, floor: 'client.messages.create(), same request', gated: false },
      { where: 'inside a workflow step', pairs: inside, floor: "client.messages.create(), same request, the run's signal", gated: true },
    ],
    { workload: 'W6', measurement: 'agent.prompt() in a workflow vs messages.create()', target: TARGET_RATIO },
  );
  rows.push(['JSON.parse + schema.safeParse of the answer text alone (info)', fmtUs(parse.medianNs / PARSE_CALLS), '-', '-', '-', '-']);
  console.log(
    table(['variant', 'median/call', 'vs create()', 'all calls (info)', 'target', 'status'], rows, ['left', 'right', 'right', 'right', 'right', 'left']),
  );
  console.log(
    `  (${RUNS} rounds after ${WARMUP} warm-up, each on a fresh ScriptedModel answering the same JSON through the real SDK client:\n` +
      `   ${int(CALLS)} agent calls and ${int(CALLS)} messages.create() calls alternating call by call; "vs create()" = total agent time /\n` +
      `   total create() time over the pairs where neither call took over ${STALL_FACTOR}x the floor's median with no GC pause in it\n` +
      `   (the machine's stalls); "all calls" keeps them; ${stalls.join(';\n   ')};\n` +
      `   all with the same ${int(expectedBody.length)}-byte body; inside: ~${int(events / ((WARMUP + RUNS) * CALLS))} events per agent call reached the root observer;\n` +
      `   last row: the part of agent.prompt()'s extra work that a hand-written caller would also do, ${int(PARSE_CALLS)} per run,\n` +
      `   median of ${parse.samples.length} runs)`,
  );
}
