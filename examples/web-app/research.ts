/**
 * The web app's durable research run, and the offline model it runs on.
 *
 * research (root, durable, streamText)
 *   step gather  → child workflow `gather`: the researcher calls `search`, then answers notes
 *   step publish → the publisher calls `publish`, which needs a person's approval (a durable wait)
 *   step write   → the writer's `{ report }` answer, streamed as the message's text
 *
 * The model is a `ScriptedModel` answering by who asks and what it was sent (never by arrival
 * order), served over a loopback Chat Completions endpoint and reached through
 * `@ai-sdk/openai-compatible`, as a local model would be. Answering by content is what lets a
 * server that restarted mid-run resume it with a fresh model: the resumed run asks only what it
 * had not been answered yet.
 */
import { appendFile } from 'node:fs/promises';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, type DurableWorkflowFactory, type LanguageModelLike, type Workflow } from 'groundswell';
import type { RunStore } from 'groundswell/durable';
import {
  json,
  requestData,
  route,
  ScriptedModel,
  serveChatCompletions,
  stream,
  toolResults,
  toolUse,
  userText,
  type RecordedRequest,
  type ScriptStep,
} from 'groundswell/testing';

/** The name runs are stored under: `resume()` and approvals find the factory by it. */
export const RESEARCH = 'research';

const ResearchInput = z.object({ topic: z.string().min(1) });
export type ResearchInput = z.infer<typeof ResearchInput>;

const Notes = z.object({ notes: z.array(z.string()) });
const Publication = z.object({ published: z.boolean(), toolResult: z.string() });
const Report = z.object({ report: z.string() });
export type Report = z.infer<typeof Report>;

const MODEL_ID = 'stand-in';

/** What every run of this server shares. */
export interface ResearchSetup {
  readonly store: RunStore;
  readonly model: LanguageModelLike;
  /** The file `publish` appends a line to: what the tool did, seen outside the run. */
  readonly publishLog: string;
}

/** The stand-in model's endpoint, and the AI SDK model that talks to it. */
export interface StandIn {
  readonly model: LanguageModelLike;
  close(): Promise<void>;
}

/**
 * Starts the offline model: each answer comes after `delayMs` (a model thinking), and a streamed
 * answer arrives a piece at a time, `delayMs / 10` apart (a model writing), so a page shows the
 * report growing and a test can act while a run is under way.
 */
export async function startStandIn(delayMs: number): Promise<StandIn> {
  const server = await serveChatCompletions(new ScriptedModel(standInAnswers(delayMs)), { modelId: MODEL_ID });
  const provider = createOpenAICompatible({
    name: 'local',
    baseURL: server.baseURL,
    // Streams carry usage only when asked; the page's tokens and cost need it.
    includeUsage: true,
    // JSON answers come as text the page can show as it is written; without this the agent asks
    // for them through a forced tool, whose input is not streamed as text.
    supportsStructuredOutputs: true,
    fetch: pacedFetch(Math.max(1, Math.round(delayMs / 10))),
  });
  return { model: provider.chatModel(MODEL_ID), close: () => server.close() };
}

/** The factories `resume()` and `handleApproval` rebuild a stored run's workflow with. */
export function researchWorkflows(setup: ResearchSetup): Readonly<Record<string, DurableWorkflowFactory>> {
  return { [RESEARCH]: (input, { runId }) => researchWorkflow(setup, runId, ResearchInput.parse(input)) };
}

// A local model's compute, priced per million tokens so the page has a cost to show.
const pricing = { [`local/${MODEL_ID}`]: { inputPerMTok: 0.5, outputPerMTok: 1.5 } };

/** The research run: the same code for a new run and for one resumed after a restart. */
export function researchWorkflow(setup: ResearchSetup, runId: string, input: ResearchInput): Workflow<Report> {
  const search = defineTool({
    name: 'search',
    description: 'Searches the library for sources on a topic.',
    input: z.object({ query: z.string() }),
    execute: ({ query }) => [`${query} follow the moon`, `${query} rise twice a day`, `spring ${query} are the highest`].join('\n'),
  });
  const publish = defineTool({
    name: 'publish',
    description: 'Publishes notes to the team wiki.',
    input: z.object({ title: z.string(), notes: z.array(z.string()) }),
    // A person approves each publication: the call waits (durably) for the page's answer.
    needsApproval: true,
    execute: async ({ title }) => {
      await appendFile(setup.publishLog, `${runId}\t${title}\n`);
      return `Published "${title}" to the wiki.`;
    },
  });
  const researcher = createAgent({ name: 'researcher', system: 'You research a topic: search, then answer notes.', model: setup.model, tools: [search], pricing });
  const publisher = createAgent({ name: 'publisher', system: 'You publish research notes.', model: setup.model, tools: [publish], pricing });
  const writer = createAgent({ name: 'writer', system: 'You write the final report.', model: setup.model, pricing });

  return createWorkflow({ name: RESEARCH, streamText: true, durable: { store: setup.store, runId, input } }, async (ctx) => {
    const { notes } = await ctx.step('gather', () =>
      ctx.spawnWorkflow(
        createWorkflow({ name: 'gather' }, () => researcher.prompt(createPrompt({ user: `Research ${input.topic}.`, responseFormat: Notes }))),
      ),
    );
    const publication = await ctx.step('publish', () =>
      publisher.prompt(createPrompt({ user: `Publish the notes on ${input.topic}.`, data: { title: input.topic, notes }, responseFormat: Publication })),
    );
    return ctx.step('write', () =>
      writer.prompt(createPrompt({ user: `Write the report on ${input.topic}.`, data: { topic: input.topic, notes, ...publication }, responseFormat: Report })),
    );
  });
}

const tokens = (input: number, output: number) => ({ usage: { input_tokens: input, output_tokens: output } });

/** The stand-in's answers, chosen from the request: which agent asks, and what its tools answered. */
function standInAnswers(delayMs: number) {
  const researcher = (request: RecordedRequest): ScriptStep => {
    const found = toolResults(request)[0];
    if (found === undefined) return toolUse('search', { query: topicOf(request) }, { delayMs, ...tokens(120, 18) });
    return json({ notes: found.content.split('\n') }, { delayMs, ...tokens(260, 40) });
  };
  const publisher = (request: RecordedRequest): ScriptStep => {
    const answered = toolResults(request)[0];
    if (answered === undefined) {
      const { title, notes } = requestData(request, z.object({ title: z.string(), notes: z.array(z.string()) }));
      return toolUse('publish', { title, notes }, { delayMs, ...tokens(180, 30) });
    }
    // A denied call comes back as the tool's result ("Denied by the user…"): the model reads it like any other.
    return json({ published: !answered.content.startsWith('Denied by the user'), toolResult: answered.content }, { delayMs, ...tokens(220, 20) });
  };
  const writer = (request: RecordedRequest): ScriptStep => {
    const { topic, notes, published, toolResult } = requestData(request, Notes.extend(Publication.shape).extend({ topic: z.string() }));
    const outcome = published ? 'Publishing was approved' : 'Publishing was not approved';
    const report =
      `Report on ${topic}. ${notes.map((note) => `${note[0]?.toUpperCase() ?? ''}${note.slice(1)}.`).join(' ')} ` +
      `${outcome}: the publish tool answered "${toolResult}"`;
    return stream(json({ report }, { delayMs, ...tokens(400, 90) }), { chunkSize: 6 });
  };
  return route({
    byAgent: { 'You research': researcher, 'You publish': publisher, 'You write': writer },
  });
}

function topicOf(request: RecordedRequest): string {
  return /^Research (.+)\.$/.exec(userText(request).trim())?.[1] ?? 'tides';
}

/**
 * A `fetch` that hands on a streamed answer one server-sent event at a time, `ms` apart: the
 * loopback stand-in writes a whole answer at once, a real model does not.
 */
function pacedFetch(ms: number): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.body === null || !(response.headers.get('content-type') ?? '').includes('text/event-stream')) return response;
    const decoder = new TextDecoder();
    const encoder = new TextEncoder();
    let held = '';
    const paced = new TransformStream<Uint8Array, Uint8Array>({
      async transform(bytes, controller) {
        held += decoder.decode(bytes, { stream: true });
        const events = held.split('\n\n');
        held = events.pop() ?? '';
        for (const event of events) {
          await new Promise((resolve) => setTimeout(resolve, ms));
          controller.enqueue(encoder.encode(`${event}\n\n`));
        }
      },
      flush(controller) {
        if (held !== '') controller.enqueue(encoder.encode(held));
      },
    });
    return new Response(response.body.pipeThrough(paced), { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}
