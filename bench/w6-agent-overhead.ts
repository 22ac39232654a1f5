/**
 * W6: framework overhead of one `agent.prompt()` (no cache, native structured output) against the
 * scripted model, vs calling the same SDK client's `messages.create` directly with the very same
 * request body. Both go through the real Anthropic SDK and the same ScriptedModel responder
 * (which answers with the same JSON), so the difference is what groundswell adds: settings,
 * request plan, interceptors, tree node and events, answer parsing and zod validation.
 * Measured outside any workflow and inside a workflow step, variants interleaved run by run.
 * Floor: the direct messages.create(); target: inside a workflow ≤ 1.15× the floor.
 */
import type { MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages/messages';
import { isDeepStrictEqual } from 'node:util';
import { createAgent, createPrompt, createWorkflow, type Agent, type Prompt, type WorkflowObserver } from 'groundswell';
import { ScriptedModel } from 'groundswell/testing';
import { ANSWER_STEP, dataBytes, makeTriageSchema, MODEL, SYSTEM, TICKET_DATA, TRIAGE_ANSWER, USER, type TriageSchema } from './agent-fixtures.js';
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
  section,
  table,
  recordRatio,
  type Measurement,
} from './harness.js';

const CALLS = 2_000;
const WARMUP = 1;
// 9 rounds: on a shared machine one round moves by ±20%, and the median needs enough of them.
const RUNS = 9;
/** agent.prompt() inside a workflow ≤ 1.15× a direct messages.create() (the floor). */
const TARGET_RATIO = 1.15;

type Answer = ReturnType<TriageSchema['parse']>;

interface Variant {
  label: string;
  /** Runs CALLS calls against a fresh scripted model (fresh, so recorded requests do not pile up). */
  loop(model: ScriptedModel): Promise<unknown>;
}

interface Fixture {
  schema: TriageSchema;
  prompt: Prompt<Answer>;
  /** The body the agent sends, captured from one agent call: what the direct calls send too. */
  params: MessageCreateParamsNonStreaming;
}

function newAgent(model: ScriptedModel): Agent {
  return createAgent({ name: 'triage', client: model.client(), system: SYSTEM, model: MODEL });
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
 * Outside a workflow: the agent and a plain `messages.create()`. Inside one (`signal` given) the
 * agent sends every request with the run's cancellation signal, so a cancelled run frees the
 * connection; the SDK then adds and removes an abort listener per request. The floor there is
 * the same call written by hand with that same cancellation (the run's signal), and the plain
 * call without a signal is shown as info (decision 0060).
 */
function variants({ prompt, params }: Fixture, signal?: AbortSignal): Variant[] {
  const direct = (label: string, options: { signal?: AbortSignal } | undefined): Variant => ({
    label,
    async loop(model) {
      const client = model.client();
      let last: unknown;
      for (let i = 0; i < CALLS; i += 1) last = await client.messages.create(params, options);
      return last;
    },
  });
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
    ...(signal === undefined
      ? [direct('client.messages.create(), same request', undefined)]
      : [direct("client.messages.create(), same request, the run's signal", { signal }), direct('client.messages.create(), same request, no signal (info)', undefined)]),
  ];
}

/**
 * WARMUP + RUNS rounds; each round runs every variant once (order rotated round by round so no
 * variant always goes first), each after a forced GC, each on a fresh scripted model.
 * Also checks every variant made exactly CALLS requests with the same body.
 */
async function paired(list: readonly Variant[], expectedBody: string): Promise<number[][]> {
  const samples = list.map((): number[] => []);
  for (let round = 0; round < WARMUP + RUNS; round += 1) {
    for (let k = 0; k < list.length; k += 1) {
      const index = (round + k) % list.length;
      const variant = list[index] as Variant;
      const model = new ScriptedModel(() => ANSWER_STEP);
      forceGc();
      const start = now();
      await variant.loop(model);
      const ns = elapsedNs(start);
      if (model.requests.length !== CALLS) {
        throw new Error(`W6: ${variant.label} made ${model.requests.length} requests, expected ${CALLS}`);
      }
      if (round === 0 && model.requests[0]?.rawBody !== expectedBody) {
        throw new Error(`W6: ${variant.label} sent a different request body than the agent`);
      }
      if (round >= WARMUP) samples[index]?.push(ns);
    }
  }
  return samples;
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
  const list = variants(fx);

  const outside = await paired(list, expectedBody);
  let insideList: Variant[] = [];

  let events = 0;
  const observer: WorkflowObserver = {
    onEvent() {
      events += 1;
    },
  };
  const wf = createWorkflow<number[][]>('w6-overhead', (ctx) =>
    ctx.step('calls', () => {
      insideList = variants(fx, ctx.signal);
      return paired(insideList, expectedBody);
    }),
  );
  wf.addObserver(observer);
  const inside = await wf.run();
  const parse = await parseAndValidate(fx.schema);

  const rows: string[][] = [];
  for (const [where, samples, used] of [
    ['outside a workflow', outside, list],
    ['inside a workflow step', inside, insideList],
  ] as const) {
    const perCall = samples.map((s) => median(s) / CALLS);
    const minPerCall = samples.map((s) => Math.min(...s) / CALLS);
    const direct = perCall[1] as number;
    // Round by round ratio (same round = same load), as a cross-check of the ratio of medians.
    const agentRuns = samples[0] ?? [];
    const directRuns = samples[1] ?? [];
    const pairedRatio = median(agentRuns.map((ns, i) => ns / (directRuns[i] as number)));
    used.forEach((variant, i) => {
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
        target ? recordRatio('W6', 'agent.prompt() in a workflow vs messages.create()', value / direct, TARGET_RATIO) : '-',
      ]);
    });
  }
  const parsePerCall = parse.medianNs / PARSE_CALLS;
  rows.push([
    'JSON.parse + schema.safeParse of the answer text alone (info)',
    fmtUs(parsePerCall),
    fmtUs(parse.minNs / PARSE_CALLS),
    '-',
    '-',
    '-',
    '-',
  ]);
  console.log(
    table(['variant', 'median/call', 'min/call', 'vs create()', 'paired ratio', 'target', 'status'], rows, [
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
      `   interleaved; "paired ratio" = median over rounds of agent/create() time in the same round; every call went through\n` +
      `   the real SDK client to a fresh ScriptedModel answering the same JSON, all with the same ${int(expectedBody.length)}-byte body;\n` +
      `   inside: ~${int(events / ((WARMUP + RUNS) * CALLS))} events per agent call reached the root observer; last row: the part of\n` +
      `   agent.prompt()'s extra work that a hand-written caller would also do, ${int(PARSE_CALLS)} per run, median of ${parse.samples.length} runs)`,
  );
}
