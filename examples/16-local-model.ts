/**
 * Example 16: agents on a local model (Ollama, llama.cpp server, vLLM), or any AI SDK provider.
 *
 * - `createAgent({ model })` with a language model of the AI SDK provider specification, here
 *   `@ai-sdk/openai-compatible` pointed at an OpenAI-compatible server
 * - a tool loop and a typed, validated answer on that model, priced as `local/<model>`
 * - one workflow mixing providers: a reviewer on the Anthropic client beside the local model
 * - the tree shows every call with its model and cost, whichever provider answered
 *
 * Offline by default: a loopback stand-in of the Chat Completions API (`serveChatCompletions`
 * from groundswell/testing) answers from a script, through the real provider package. With
 * OPENAI_BASE_URL set (e.g. http://localhost:11434/v1 for Ollama) it talks to that server, using
 * OPENAI_MODEL (default llama3.2) and OPENAI_API_KEY if the server wants one.
 * Run: npx tsx examples/16-local-model.ts
 */
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, WorkflowTreeDebugger } from 'groundswell';
import { json, ScriptedModel, serveChatCompletions, toolUse, type ChatCompletionsServer } from 'groundswell/testing';
import { assertScriptsComplete, exampleClient, tokens } from './support/model.js';

const realServer = process.env.OPENAI_BASE_URL;
const modelId = process.env.OPENAI_MODEL ?? 'llama3.2';

// Offline: the local model's answers, scripted; the stand-in translates them to Chat Completions.
const scripted = new ScriptedModel([
  toolUse('word_count', { text: 'Groundswell runs agents on any model.' }, tokens(180, 22)),
  json({ summary: 'Agents run on any model.', words: 6 }, tokens(240, 30)),
]);
let standIn: ChatCompletionsServer | undefined;
if (realServer === undefined) standIn = await serveChatCompletions(scripted, { modelId });
console.log(realServer === undefined ? `local model: offline stand-in at ${standIn?.baseURL}` : `local model: ${modelId} at ${realServer}`);

const local = createOpenAICompatible({
  name: 'local',
  baseURL: realServer ?? standIn?.baseURL ?? '',
  // Streams carry usage only when asked; budgets and costs need it.
  includeUsage: true,
  ...(process.env.OPENAI_API_KEY ? { apiKey: process.env.OPENAI_API_KEY } : {}),
});

const wordCount = defineTool({
  name: 'word_count',
  description: 'Counts the words of a text.',
  input: z.object({ text: z.string() }),
  execute: ({ text }) => text.split(/\s+/).filter(Boolean).length,
});

// Prices per million tokens: a local model's compute, keyed provider/model; the reviewer's by id.
const pricing = { [`local/${modelId}`]: { inputPerMTok: 0.05, outputPerMTok: 0.1 }, 'claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5 } };

const summarizer = createAgent({
  name: 'summarizer',
  model: local.chatModel(modelId),
  system: 'You summarise text in one sentence. Count its words with the tool.',
  tools: [wordCount],
  pricing,
});
const reviewer = createAgent({
  name: 'reviewer',
  model: 'claude-haiku-4-5',
  client: exampleClient([json({ approved: true }, tokens(90, 8))]),
  pricing,
});

const Summary = z.object({ summary: z.string(), words: z.number().int() });
const Review = z.object({ approved: z.boolean() });

const wf = createWorkflow({ name: 'summarize-locally', goal: 'Summarise a note on a local model' }, async (ctx) => {
  const summary = await ctx.step('summarize', () =>
    summarizer.prompt(createPrompt({ user: 'Summarise and count the words of: Groundswell runs agents on any model.', responseFormat: Summary })),
  );
  const review = await ctx.step('review', () => reviewer.prompt(createPrompt({ user: 'Approve this summary?', data: summary, responseFormat: Review })));
  return { ...summary, ...review };
});

try {
  console.log('result:', await wf.run());
  console.log(new WorkflowTreeDebugger(wf).toTreeString());
  if (realServer === undefined) {
    // What the local server was sent: the tool round as Chat Completions messages.
    const sent = scripted.requests[1]?.chatCompletions as { messages?: Array<{ role: string }> } | undefined;
    console.log('second request to the local model, roles:', sent?.messages?.map((message) => message.role).join(' → '));
    scripted.assertComplete();
  }
  assertScriptsComplete();
} finally {
  await standIn?.close();
}
