/**
 * W12: framework overhead of one `agent.prompt()` on an AI SDK provider model (no cache,
 * structured output as the provider's JSON response format) vs calling the same model's own
 * `doGenerate()` with the very call options the agent sends. The model is the real
 * `@ai-sdk/openai-compatible` chat model talking HTTP to the loopback stand-in
 * `serveChatCompletions(ScriptedModel)`, answering the same JSON every time; both sides pay the
 * same loopback round trip, so the difference is what groundswell adds: settings, request plan,
 * interceptors, the Messages-shape request and its translation to call options, answer
 * translation, tree node and events, answer parsing and zod validation.
 * Measured outside any workflow and inside a workflow step, variants interleaved run by run; an
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
import {
  elapsedNs,
  fixed2,
  fmtBytes,
  fmtUs,
  forceGc,
  int,
  measure,
  median,
  now,
  recordRatio,
  section,
  table,
  type Measurement,
} from './harness.js';

// Each call is a real loopback HTTP round trip (1–4 ms on these machines), so fewer calls per round than W6
// and more rounds: a round stays about a second, and the median has more rounds to pick from.
const CALLS = 500;
const WARMUP = 1;
// 15 rounds: on a shared machine one round moves by ±20%, and the median needs enough of them.
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

function variants({ prompt, options }: Fixture): Variant[] {
  return [
    {
      label: 'agent.prompt()',
      async loop(model) {
        const agent = newAgent(model);
        let last: unknown;
        for (let i = 0; i < CALLS; i += 1) last = await agent.prompt(prompt);
        return last;
      },
    },
    {
      // The agent's request is cancellable, so it carries an abort signal of its own; so does the floor's.
      label: 'model.doGenerate(), same call options',
      async loop(model) {
        let last: unknown;
        for (let i = 0; i < CALLS; i += 1) last = await model.doGenerate({ ...options, abortSignal: new AbortController().signal });
        return last;
      },
    },
  ];
}

/**
 * WARMUP + RUNS rounds; each round runs every variant once (order rotated round by round so no
 * variant always goes first), each after a forced GC, each on a fresh endpoint (server and model).
 * Also checks every variant made exactly CALLS requests with the same HTTP body.
 */
async function paired(list: readonly Variant[], expectedBody: string): Promise<number[][]> {
  const samples = list.map((): number[] => []);
  for (let round = 0; round < WARMUP + RUNS; round += 1) {
    for (let k = 0; k < list.length; k += 1) {
      const index = (round + k) % list.length;
      const variant = list[index] as Variant;
      const { scripted, server, model } = await endpoint();
      try {
        forceGc();
        const start = now();
        await variant.loop(model);
        const ns = elapsedNs(start);
        if (scripted.requests.length !== CALLS) {
          throw new Error(`W12: ${variant.label} made ${scripted.requests.length} requests, expected ${CALLS}`);
        }
        if (round === 0 && scripted.requests[0]?.rawBody !== expectedBody) {
          throw new Error(`W12: ${variant.label} sent a different request body than the agent`);
        }
        if (round >= WARMUP) samples[index]?.push(ns);
      } finally {
        await server.close();
      }
    }
  }
  return samples;
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
  const list = variants(fx);

  const outside = await paired(list, fx.rawBody);

  let events = 0;
  const observer: WorkflowObserver = {
    onEvent() {
      events += 1;
    },
  };
  const wf = createWorkflow<number[][]>('w12-provider-overhead', (ctx) => ctx.step('calls', () => paired(list, fx.rawBody)));
  wf.addObserver(observer);
  const inside = await wf.run();
  const { server, model } = await endpoint();
  const memoryWf = createWorkflow<Measurement>('w12-in-memory', (ctx) => ctx.step('calls', () => inMemory(fx, model)));
  const memory = await memoryWf.run().finally(() => server.close());

  const rows: string[][] = [];
  for (const [where, samples] of [
    ['outside a workflow', outside],
    ['inside a workflow step', inside],
  ] as const) {
    const perCall = samples.map((s) => median(s) / CALLS);
    const minPerCall = samples.map((s) => Math.min(...s) / CALLS);
    const direct = perCall[1] as number;
    // Round by round ratio (same round = same load), as a cross-check of the ratio of medians.
    const agentRuns = samples[0] ?? [];
    const directRuns = samples[1] ?? [];
    const pairedRatio = median(agentRuns.map((ns, i) => ns / (directRuns[i] as number)));
    list.forEach((variant, i) => {
      const value = perCall[i] as number;
      const isAgent = i === 0;
      const target = isAgent && where === 'inside a workflow step';
      rows.push([
        `${where}: ${i === 1 ? `FLOOR: ${variant.label}` : variant.label}${isAgent && !target ? ' (info)' : ''}`,
        fmtUs(value),
        fmtUs(minPerCall[i] as number),
        i === 1 ? '1.00x' : `${fixed2(value / direct)}x`,
        isAgent ? `${fixed2(pairedRatio)}x` : '-',
        target ? `≤ ${fixed2(TARGET_RATIO)}x` : '-',
        target ? recordRatio('W12', 'agent.prompt() on a provider model in a workflow vs doGenerate()', value / direct, TARGET_RATIO) : '-',
      ]);
    });
  }
  rows.push([
    'inside a workflow step: agent.prompt(), doGenerate answering in memory (info)',
    fmtUs(memory.medianNs / MEMORY_CALLS),
    fmtUs(memory.minNs / MEMORY_CALLS),
    '-',
    '-',
    '-',
    '-',
  ]);
  console.log(
    table(['variant', 'median/call', 'min/call', 'vs doGenerate()', 'paired ratio', 'target', 'status'], rows, [
      'left',
      'right',
      'right',
      'right',
      'right',
      'right',
      'left',
    ]),
  );
  console.log(
    `  (median of ${RUNS} rounds after ${WARMUP} warm-up, ${int(CALLS)} sequential awaited calls per variant per round, variants\n` +
      `   interleaved; "paired ratio" = median over rounds of agent/doGenerate() time in the same round; every call went through\n` +
      `   the real @ai-sdk/openai-compatible chat model over loopback HTTP to a fresh serveChatCompletions(ScriptedModel)\n` +
      `   answering the same JSON, all with the same ${int(fx.rawBody.length)}-byte body; inside: ~${int(events / ((WARMUP + RUNS) * CALLS))} events\n` +
      `   per agent call reached the root observer; last row: groundswell's own work per call without the round trip, the\n` +
      `   model's doGenerate answering the captured result, ${int(MEMORY_CALLS)} calls per run, median of ${memory.samples.length} runs)`,
  );
}
