/**
 * W12: framework overhead of one `agent.prompt()` on an AI SDK provider model (no cache,
 * structured output as the provider's JSON response format) vs calling the same model's own
 * `doGenerate()` with the very call options the agent sends. The model is the real
 * `@ai-sdk/openai-compatible` chat model talking HTTP to the loopback stand-in
 * `serveChatCompletions(ScriptedModel)`, answering the same JSON every time; both sides pay the
 * same loopback round trip, so the difference is what groundswell adds: settings, request plan,
 * interceptors, the Messages-shape request and its translation to call options, answer
 * translation, tree node and events, answer parsing and zod validation.
 * Measured outside any workflow and inside a workflow step, agent and floor alternating call by call
 * (call-pairs.ts: the machine's stalls left out); an
 * info row shows groundswell's own work alone (doGenerate answering the captured result in memory).
 * Floor: the model's doGenerate() with an abort signal of its own per call, as the agent's request has;
 * target: inside a workflow ≤ 1.15× the floor.
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { isDeepStrictEqual } from 'node:util';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  type Agent,
  type LanguageModelLike,
  type Prompt,
  type WorkflowObserver,
} from 'groundswell';
import { ScriptedModel, serveChatCompletions, type ChatCompletionsServer } from 'groundswell/testing';
import { ANSWER_STEP, dataBytes, makeTriageSchema, SYSTEM, TICKET_DATA, TRIAGE_ANSWER, USER, type TriageSchema } from './agent-fixtures.js';
import { alternate, callPairs, STALL_FACTOR, type CallPairs } from './call-pairs.js';
import { pairRows } from './pair-rows.js';
import {
  fmtBytes,
  fmtUs,
  forceGc,
  int,
  measure,
  section,
  table,
  type Measurement,
} from './harness.js';

// Each call is a real loopback HTTP round trip (about 1 ms here): 15 rounds of 500 pairs, each
// round on a fresh server so recorded requests never pile up.
const CALLS = 500;
const WARMUP = 1;
const RUNS = 15;
/** Calls per run of the in-memory row (info): no HTTP, so many more fit in the same time. */
const MEMORY_CALLS = 5_000;
/** agent.prompt() on the provider path inside a workflow ≤ 1.15× the model's own doGenerate() (the floor). */
const TARGET_RATIO = 1.15;
const MODEL_ID = 'bench-model';

type Answer = ReturnType<TriageSchema['parse']>;
type CallOptions = Parameters<LanguageModelLike['doGenerate']>[0];

/** One scripted model served over loopback HTTP, and the real provider model pointed at it. */
interface Endpoint {
  scripted: ScriptedModel;
  server: ChatCompletionsServer;
  model: LanguageModelLike;
}

interface Variant {
  label: string;
  /** Runs CALLS calls against a fresh endpoint (fresh, so recorded requests do not pile up). */
  loop(model: LanguageModelLike): Promise<unknown>;
}

interface Fixture {
  prompt: Prompt<Answer>;
  /** The call options the agent passes to doGenerate, captured from one agent call, abortSignal removed. */
  options: CallOptions;
  /** The HTTP body the provider sent for that agent call: what the floor's calls must send too. */
  rawBody: string;
  /** What doGenerate returned for that call, replayed by the in-memory row. */
  result: Awaited<ReturnType<LanguageModelLike['doGenerate']>>;
}

async function endpoint(): Promise<Endpoint> {
  const scripted = new ScriptedModel(() => ANSWER_STEP);
  const server = await serveChatCompletions(scripted, { modelId: MODEL_ID });
  const provider = createOpenAICompatible({ name: 'local', baseURL: server.baseURL, supportsStructuredOutputs: true });
  return { scripted, server, model: provider.chatModel(MODEL_ID) };
}

function newAgent(model: LanguageModelLike): Agent {
  return createAgent({ name: 'triage', model, system: SYSTEM, enableCache: false });
}

/** The model with doGenerate replaced by `doGenerate`; everything else (provider, modelId, ...) is the model's. */
function withDoGenerate(model: LanguageModelLike, doGenerate: LanguageModelLike['doGenerate']): LanguageModelLike {
  return new Proxy(model, {
    get: (target, key, receiver) => (key === 'doGenerate' ? doGenerate : (Reflect.get(target, key, receiver) as unknown)),
  });
}

async function fixture(): Promise<Fixture> {
  const prompt = createPrompt({ user: USER, data: TICKET_DATA, responseFormat: makeTriageSchema() });
  const { scripted, server, model } = await endpoint();
  try {
    const calls: CallOptions[] = [];
    const results: Fixture['result'][] = [];
    // A recording proxy: every call's options are kept, then passed on to the model's own doGenerate.
    const recorder = withDoGenerate(model, async (options) => {
      calls.push(options);
      const result = await model.doGenerate(options);
      results.push(result);
      return result;
    });
    const answer = await newAgent(recorder).prompt(prompt);
    if (!isDeepStrictEqual(answer, TRIAGE_ANSWER)) throw new Error('W12: the agent returned a different answer');
    const sent = scripted.requests[0];
    if (calls.length !== 1 || scripted.requests.length !== 1 || sent?.rawBody === undefined) {
      throw new Error(`W12: expected 1 doGenerate call and 1 request, got ${calls.length} and ${scripted.requests.length}`);
    }
    const { abortSignal: _signal, ...options } = calls[0] as CallOptions;
    return { prompt, options: options as CallOptions, rawBody: sent.rawBody, result: results[0] as Fixture['result'] };
  } finally {
    await server.close();
  }
}

/**
 * WARMUP + RUNS rounds, each on a fresh endpoint (server and model) after a forced GC: CALLS
 * agent calls and CALLS doGenerate() calls with the agent's own call options, alternating call
 * by call (see call-pairs.ts). Checks that every call reached the server with the same HTTP body.
 */
async function paired({ prompt, options }: Fixture, expectedBody: string): Promise<CallPairs> {
  const pairs = callPairs();
  for (let round = 0; round < WARMUP + RUNS; round += 1) {
    const { scripted, server, model } = await endpoint();
    try {
      const agent = newAgent(model);
      forceGc();
      await alternate(
        CALLS,
        () => agent.prompt(prompt),
        // The agent's request is cancellable, so it carries an abort signal of its own; so does the floor's.
        () => model.doGenerate({ ...options, abortSignal: new AbortController().signal }),
        round >= WARMUP ? pairs : undefined,
      );
      if (scripted.requests.length !== 2 * CALLS) {
        throw new Error(`W12: a round made ${scripted.requests.length} requests, expected ${2 * CALLS}`);
      }
      if (round === 0 && scripted.requests.slice(0, 2).some((request) => request.rawBody !== expectedBody)) {
        throw new Error('W12: the floor sent a different request body than the agent');
      }
    } finally {
      await server.close();
    }
  }
  return pairs;
}

/**
 * groundswell's own work per call, without the HTTP round trip (info): the same agent call on the
 * same model object, its doGenerate answering the result captured from the real one in memory.
 */
async function inMemory({ prompt, result }: Fixture, model: LanguageModelLike): Promise<Measurement> {
  const agent = newAgent(withDoGenerate(model, async () => result));
  return measure(async () => {
    let last: unknown;
    for (let i = 0; i < MEMORY_CALLS; i += 1) last = await agent.prompt(prompt);
    if (!isDeepStrictEqual(last, TRIAGE_ANSWER)) throw new Error('W12: the in-memory agent returned a different answer');
    return last;
  });
}

export async function runW12(): Promise<void> {
  section(
    `W12  provider path overhead: agent.prompt() vs the model's own doGenerate() with the same call options, @ai-sdk/openai-compatible over loopback HTTP (${fmtBytes(dataBytes())} data)`,
  );
  const fx = await fixture();
  const outside = await paired(fx, fx.rawBody);

  let events = 0;
  const observer: WorkflowObserver = {
    onEvent() {
      events += 1;
    },
  };
  const wf = createWorkflow<CallPairs>('w12-provider-overhead', (ctx) => ctx.step('calls', () => paired(fx, fx.rawBody)));
  wf.addObserver(observer);
  const inside = await wf.run();
  const { server, model } = await endpoint();
  const memoryWf = createWorkflow<Measurement>('w12-in-memory', (ctx) => ctx.step('calls', () => inMemory(fx, model)));
  const memory = await memoryWf.run().finally(() => server.close());

  const floor = 'model.doGenerate(), same call options';
  const { rows, stalls } = pairRows('W12', [
    { where: 'outside a workflow', pairs: outside, floor },
    {
      where: 'inside a workflow step',
      pairs: inside,
      floor,
      gate: { measurement: 'agent.prompt() on a provider model in a workflow vs doGenerate()', target: TARGET_RATIO },
    },
  ]);
  rows.push(['inside a workflow step: agent.prompt(), doGenerate answering in memory (info)', fmtUs(memory.medianNs / MEMORY_CALLS), '-', '-', '-', '-']);
  console.log(
    table(['variant', 'median/call', 'vs doGenerate()', 'all calls (info)', 'target', 'status'], rows, ['left', 'right', 'right', 'right', 'right', 'left']),
  );
  console.log(
    `  (${RUNS} rounds after ${WARMUP} warm-up, each on a fresh serveChatCompletions(ScriptedModel) and model: ${int(CALLS)} agent calls and\n` +
      `   ${int(CALLS)} doGenerate() calls alternating call by call; "vs doGenerate()" = total agent time / total doGenerate() time over\n` +
      `   the pairs, each side without as many of its slowest GC-free calls as the floor had calls over ${STALL_FACTOR}x its median\n` +
      `   with no GC pause in them (the host's stalls, counted on the floor: the same number dropped from both sides);\n` +
      `   "all calls" keeps every call; ${stalls.join(';\n   ')};\n   every call went through the real @ai-sdk/openai-compatible chat model over loopback HTTP,\n` +
      `   all with the same ${int(fx.rawBody.length)}-byte body; inside: ~${int(events / ((WARMUP + RUNS) * CALLS))} events per agent call reached the root observer;\n` +
      `   last row: groundswell's own work per call without the round trip, the model's doGenerate answering the captured\n` +
      `   result, ${int(MEMORY_CALLS)} calls per run, median of ${memory.samples.length} runs)`,
  );
}
