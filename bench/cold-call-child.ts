/**
 * The program W14 runs in a fresh Node process (plain `node`, no tsx: its loader hooks would slow
 * every module the first call loads): it imports what an application on a provider model imports
 * (zod, groundswell from dist/, @ai-sdk/openai-compatible), then makes CALLS calls, each the one
 * step of its own workflow run, as a user's traces show them. Each call is timed from the step
 * body's call to its answer (the step's duration in the trace), with the wait before its
 * `agentPromptStart`; the process prints them as one JSON line.
 *
 * `agent` calls `agent.prompt()`; `hand` is the same call written by hand (info): the model's own
 * `doGenerate()` with a JSON response format, the answer parsed and validated by the same schema.
 */
import { pathToFileURL } from 'node:url';
import { DIST_ENTRY } from './built-package.js';
import { SYSTEM, TICKET_DATA, USER } from './agent-fixtures.js';

export type ColdMode = 'agent' | 'hand';

/** One call as the child measured it, in ms. */
export interface ColdCall {
  readonly ms: number;
  /** From the call to its `agentPromptStart` (agent mode only). */
  readonly startWaitMs?: number;
}

/** Calls per process: the first, then the later ones the first is compared with. */
export const CALLS = 6;

/** The child's ES module source; `baseURL` is the parent's loopback Chat Completions server. */
export function coldCallProgram(mode: ColdMode, baseURL: string, modelId: string): string {
  const consts = {
    ENTRY: pathToFileURL(DIST_ENTRY).href,
    BASE_URL: baseURL,
    MODEL_ID: modelId,
    SYSTEM,
    USER,
    DATA: TICKET_DATA,
    MODE: mode,
    CALLS,
  };
  const declarations = Object.entries(consts)
    .map(([name, value]) => `const ${name} = ${JSON.stringify(value)};`)
    .join('\n');
  return `${declarations}\n${BODY}`;
}

// Plain JavaScript (the child runs it as is). The schema is the answer's shape (agent-fixtures'
// TRIAGE_ANSWER), without the fixture's refinements: a function's source cannot be handed over.
const BODY = String.raw`
const { z } = await import('zod');
const gs = await import(ENTRY);
const { createOpenAICompatible } = await import('@ai-sdk/openai-compatible');
const category = z.enum(['billing', 'shipping', 'product', 'account', 'other']);
const schema = z.object({
  category,
  secondaryCategories: z.array(category).max(3),
  priority: z.number().int().min(1).max(5),
  summary: z.string().min(20).max(400),
  sentiment: z.number().min(-1).max(1),
  orderId: z.string().regex(/^ORD-\d{6}$/),
  refund: z.object({ amount: z.number().nonnegative(), currency: z.string().length(3) }),
  nextActions: z.array(z.object({ owner: z.enum(['payments', 'logistics', 'support']), action: z.string().min(5) })).min(1).max(5),
});
const model = createOpenAICompatible({ name: 'local', baseURL: BASE_URL, supportsStructuredOutputs: true }).chatModel(MODEL_ID);
const agent = gs.createAgent({ name: 'triage', model, system: SYSTEM, enableCache: false });
const prompt = gs.createPrompt({ user: USER, data: DATA, responseFormat: schema });

async function byHand() {
  const result = await model.doGenerate({
    prompt: [
      { role: 'system', content: SYSTEM },
      { role: 'user', content: [{ type: 'text', text: USER + '\n\n' + JSON.stringify(DATA) }] },
    ],
    responseFormat: { type: 'json', schema: z.toJSONSchema(schema), name: 'answer' },
    maxOutputTokens: 4096,
    abortSignal: new AbortController().signal,
  });
  const text = result.content.find((part) => part.type === 'text');
  return schema.parse(JSON.parse(text.text));
}

const calls = [];
for (let i = 0; i < CALLS; i += 1) {
  let startedAt;
  const workflow = gs.createWorkflow('cold-first-call', (ctx) =>
    ctx.step('triage', async () => {
      const t0 = performance.now();
      const answer = MODE === 'agent' ? await agent.prompt(prompt) : await byHand();
      const ms = performance.now() - t0;
      if (answer.orderId !== 'ORD-482913') throw new Error('W14: a different answer');
      return { ms, ...(startedAt === undefined ? {} : { startWaitMs: startedAt - t0 }) };
    }),
  );
  workflow.addObserver({
    onEvent(event) {
      if (event.type === 'agentPromptStart' && startedAt === undefined) startedAt = performance.now();
    },
  });
  calls.push(await workflow.run());
}
process.stdout.write(JSON.stringify(calls) + '\n');
`;
