/**
 * W6: framework overhead of one `agent.prompt()` (no cache, native structured output) against the
 * scripted model, vs calling the same SDK client's `messages.create` directly with the very same
 * request body. Both go through the real Anthropic SDK and the same ScriptedModel responder
 * (which answers with the same JSON), so the difference is what groundswell adds: settings,
 * request plan, interceptors, tree node and events, answer parsing and zod validation.
 * Measured outside any workflow and inside a workflow step, agent and floor alternating call by
 * call, the host's stalls left out (call-pairs.ts).
 * Two gates inside a workflow: against the same call written by hand with the same result, as
 * every floor in this bench is (`messages.create()` with the run's signal, the answer's text
 * parsed and validated by the same schema, a start and an end event given to an observer;
 * decision 0065), ≤ 1.10×; and against the bare `messages.create()` with the run's signal, which
 * returns an unvalidated message, ≤ 1.15× (the target as first set). Outside a workflow: info.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { MessageCreateParamsNonStreaming, Usage } from '@anthropic-ai/sdk/resources/messages/messages';
import { performance } from 'node:perf_hooks';
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
/** agent.prompt() inside a workflow ≤ 1.15× a bare messages.create() with the run's signal. */
const TARGET_BARE = 1.15;
/** agent.prompt() inside a workflow ≤ 1.10× the same call written by hand (validated, with events). */
const TARGET_BY_HAND = 1.1;

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

/** What the hand-written floor tells its observer: a start and an end per call. */
interface FloorCallEvent {
  readonly type: 'callStart' | 'callEnd';
  readonly name: string;
  readonly model: string;
  readonly timestamp: number;
  readonly duration?: number;
  readonly usage?: Usage;
}

type FloorCall = (client: Anthropic) => () => Promise<unknown>;

/** The bare SDK call: an unvalidated `Message` (info). */
function bareCreate(params: MessageCreateParamsNonStreaming, signal?: AbortSignal): FloorCall {
  const options = signal === undefined ? undefined : { signal };
  return (client) => () => client.messages.create(params, options);
}

/**
 * What agent.prompt() in a step returns, written by hand: the same request with the run's
 * signal, the answer's JSON text parsed and validated by the prompt's schema (a failure throws),
 * and a start and an end event for an observer, as the W1 floor gives per step.
 */
function handWritten(params: MessageCreateParamsNonStreaming, schema: TriageSchema, signal: AbortSignal, onEvent: (event: FloorCallEvent) => void): FloorCall {
  return (client) => async () => {
    const started = performance.now();
    onEvent({ type: 'callStart', name: 'triage', model: params.model, timestamp: started });
    const message = await client.messages.create(params, { signal });
    const block = message.content[0];
    if (block?.type !== 'text') throw new Error('W6 floor: the answer has no text');
    const parsed = schema.safeParse(JSON.parse(block.text));
    if (!parsed.success) throw new Error('W6 floor: the answer did not validate', { cause: parsed.error });
    const ended = performance.now();
    onEvent({ type: 'callEnd', name: 'triage', model: message.model, timestamp: ended, duration: ended - started, usage: message.usage });
    return parsed.data;
  };
}

/**
 * WARMUP + RUNS rounds, each on a fresh scripted model (recorded requests do not pile up) after a
 * forced GC: CALLS agent calls and CALLS floor calls with the very same body, alternating call by
 * call (see call-pairs.ts). Inside a workflow the agent sends every request with the run's
 * cancellation signal, so the floors send that same signal (decision 0060). Checks every call
 * reached the model with the same body.
 */
async function paired({ prompt }: Fixture, expectedBody: string, floor: FloorCall): Promise<CallPairs> {
  const pairs = callPairs();
  for (let round = 0; round < WARMUP + RUNS; round += 1) {
    const model = new ScriptedModel(() => ANSWER_STEP);
    const agent = newAgent(model);
    const floorCall = floor(model.client());
    forceGc();
    await alternate(CALLS, () => agent.prompt(prompt), floorCall, round >= WARMUP ? pairs : undefined);
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
    `W6  framework overhead: agent.prompt() vs the same call by hand through the SDK client, same request, scripted model (${fmtBytes(dataBytes())} data)`,
  );
  const fx = await fixture();
  const expectedBody = JSON.stringify(fx.params);
  const outside = await paired(fx, expectedBody, bareCreate(fx.params));

  let events = 0;
  const observer: WorkflowObserver = {
    onEvent() {
      events += 1;
    },
  };
  let floorEvents = 0;
  const onFloorEvent = (event: FloorCallEvent): void => {
    if (event.type === 'callEnd') floorEvents += 1;
  };
  const wf = createWorkflow<{ bare: CallPairs; typed: CallPairs }>('w6-overhead', async (ctx) => ({
    bare: await ctx.step('bare', () => paired(fx, expectedBody, bareCreate(fx.params, ctx.signal))),
    typed: await ctx.step('typed', () => paired(fx, expectedBody, handWritten(fx.params, fx.schema, ctx.signal, onFloorEvent))),
  }));
  wf.addObserver(observer);
  const inside = await wf.run();
  if (floorEvents !== (WARMUP + RUNS) * CALLS) throw new Error(`W6: the hand-written floor finished ${floorEvents} calls, expected ${(WARMUP + RUNS) * CALLS}`);
  const parse = await parseAndValidate(fx.schema);

  const { rows, stalls } = pairRows('W6', [
    { where: 'outside a workflow', pairs: outside, floor: 'client.messages.create(), same request' },
    {
      where: 'inside a workflow step',
      pairs: inside.bare,
      workload: 'agent.prompt() vs the bare create()',
      floor: "client.messages.create(), same request, the run's signal",
      gate: { measurement: 'agent.prompt() in a workflow vs bare messages.create()', target: TARGET_BARE },
    },
    {
      where: 'inside a workflow step',
      pairs: inside.typed,
      workload: 'agent.prompt() vs the call by hand',
      floor: "the same call by hand: create() with the run's signal, JSON.parse + safeParse, start/end events",
      gate: { measurement: 'agent.prompt() in a workflow vs the same call by hand', target: TARGET_BY_HAND },
    },
  ]);
  rows.push(['JSON.parse + schema.safeParse of the answer text alone (info)', fmtUs(parse.medianNs / PARSE_CALLS), '-', '-', '-', '-']);
  console.log(
    table(['variant', 'median/call', 'vs floor', 'all calls (info)', 'target', 'status'], rows, ['left', 'right', 'right', 'right', 'right', 'left']),
  );
  console.log(
    `  (${RUNS} rounds after ${WARMUP} warm-up, each on a fresh ScriptedModel answering the same JSON through the real SDK client:\n` +
      `   ${int(CALLS)} agent calls and ${int(CALLS)} floor calls alternating call by call; "vs floor" = total agent time /\n` +
      `   total floor time, each side without as many of its slowest GC-free calls as the floor had calls over ${STALL_FACTOR}x its median\n` +
      `   with no GC pause in them (the host's stalls, counted on the floor: the same number dropped from both sides);\n` +
      `   "all calls" keeps every call; ${stalls.join(';\n   ')};\n` +
      `   all with the same ${int(expectedBody.length)}-byte body; inside: ~${int(events / (2 * (WARMUP + RUNS) * CALLS))} events per agent call reached the root observer;\n` +
      `   last row: the parse and validation alone, warm, as the hand-written floor does them, ${int(PARSE_CALLS)} per run,\n` +
      `   median of ${parse.samples.length} runs)`,
  );
}
