import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool } from 'groundswell';
import { MemoryRunStore } from 'groundswell/durable';
import { json, ScriptedModel, stream, toolUse } from 'groundswell/testing';
import { runChunks, toUIMessageStream, type RunChunk, type UIChunk } from 'groundswell/web';
import type { WorkflowEvent } from 'groundswell';
import { UIChunkEncoder } from '../../src/web/ui-chunk-encoder.js';
import { agentModel } from '../support/model-path.js';
import { collect, lastMessage } from './stream-reading.js';

const Report = z.object({ title: z.string(), report: z.string() });
const REPORT = { title: 'Tides', report: 'The moon pulls "the sea"; twice a day.\nSee ✓.' };

const lookup = defineTool({
  name: 'lookup',
  description: 'Looks a fact up.',
  input: z.object({ topic: z.string() }),
  execute: ({ topic }) => `fact about ${topic}`,
});

/** A research run: a tool call, then an answer streamed in small pieces, and a child workflow's call. */
async function research(model: ScriptedModel, config: { durable?: { store: MemoryRunStore; runId: string } } = {}) {
  const writer = createAgent({ name: 'writer', tools: [lookup], ...(await agentModel(model)) });
  const helper = createAgent({ name: 'helper', ...(await agentModel(model)) });
  return createWorkflow({ name: 'research', streamText: true, ...config }, async (ctx) => {
    const note = await ctx.step('gather', () =>
      ctx.spawnWorkflow(createWorkflow({ name: 'gather' }, async () => helper.prompt(createPrompt({ user: 'note', responseFormat: z.object({ note: z.string() }) })))),
    );
    return ctx.step('write', () => writer.prompt(createPrompt({ user: `write (${note.note})`, responseFormat: Report })));
  });
}

function script(): ScriptedModel {
  return new ScriptedModel([
    json({ note: 'helper note' }),
    toolUse('lookup', { topic: 'tides' }),
    stream(json(REPORT), { chunkSize: 5 }),
  ]);
}

describe('a run as a UI message stream', () => {
  it('streams the root call’s answer field as text, tool calls as tool parts and nodes as data parts, which the AI SDK reads', async () => {
    const workflow = await research(script());
    const message = lastMessage(toUIMessageStream(workflow, { textField: 'report' }));
    await workflow.run();
    const parts = (await message)?.parts ?? [];

    const texts = parts.filter((part) => part.type === 'text');
    expect(texts.map((part) => (part as { text: string }).text)).toEqual([REPORT.report]);
    const tools = parts.filter((part) => part.type === 'dynamic-tool');
    expect(tools).toMatchObject([{ toolName: 'lookup', state: 'output-available', input: { topic: 'tides' }, output: 'fact about tides' }]);
    const nodes = parts.filter((part) => part.type === 'data-node').map((part) => (part as { data: { kind: string; name: string; status: string } }).data);
    // One part per node, updated in place from running to its end.
    expect(nodes.map((node) => `${node.kind}:${node.name}:${node.status}`)).toEqual([
      'workflow:research:completed',
      'step:gather:completed',
      'workflow:gather:completed',
      'agent:helper:completed',
      'step:write:completed',
      'agent:writer:completed',
    ]);
    const writer = parts.find((part) => part.type === 'data-node' && (part as { data: { name: string } }).data.name === 'writer') as { data: { usage?: { inputTokens: number } } };
    expect(writer.data.usage?.inputTokens).toBeGreaterThan(0);
  });

  it('sends the answer in the pieces the model wrote, each chunk with its own increasing id', async () => {
    const workflow = await research(script());
    const chunks = collect(runChunks(workflow, { textField: 'report' }));
    await workflow.run();
    const all = await chunks;
    const deltas = all.filter((c) => c.chunk.type === 'text-delta');
    expect(deltas.length).toBeGreaterThan(5);
    expect(deltas.map((c) => (c.chunk as { delta: string }).delta).join('')).toBe(REPORT.report);
    const ids = all.map((c) => c.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(all.at(0)?.chunk.type).toBe('start');
    expect(all.at(-1)?.chunk.type).toBe('finish');
  });

  it('streams the answer’s JSON text when no field is named, and nothing from child workflows’ calls unless asked', async () => {
    const workflow = await research(script());
    const all = collect(runChunks(workflow, { nodes: 'none' }));
    await workflow.run();
    const text = (await all).filter((c) => c.chunk.type === 'text-delta').map((c) => (c.chunk as { delta: string }).delta).join('');
    expect(JSON.parse(text)).toEqual(REPORT);

    // The helper's call is its child workflow's: text only when asked for (a call with nothing to show has no part).
    const textOf = (chunks: RunChunk[]): string[] => chunks.filter((c) => c.chunk.type === 'text-delta').map((c) => (c.chunk as { delta: string }).delta);
    for (const [text, expected] of [['all', 'helper note'], ['root', '']] as const) {
      const again = await research(script());
      const chunks = collect(runChunks(again, { text, nodes: 'none', textField: 'note' }));
      await again.run();
      expect(textOf(await chunks).join('')).toBe(expected);
    }
  });
});

describe('two calls that stream at once', () => {
  it('each get their own text part, their pieces in order, however the pieces interleave', async () => {
    const answers = ['The first answer, in pieces.', 'A second, longer answer, also in pieces.'];
    const model = new ScriptedModel(answers.map((answer) => stream(json({ answer }), { chunkSize: 3 })));
    const agents = ['one', 'two'].map(async (name) => createAgent({ name, ...(await agentModel(model)) }));
    const [one, two] = await Promise.all(agents);
    const Answer = z.object({ answer: z.string() });
    const workflow = createWorkflow({ name: 'both', streamText: true }, async () =>
      Promise.all([one, two].map((agent) => agent?.prompt(createPrompt({ user: 'go', responseFormat: Answer })))),
    );
    const events: WorkflowEvent[] = [];
    workflow.addObserver({ onEvent: (event) => void events.push(event) });
    await workflow.run();
    // How the pieces of two streams interleave depends on the transport: the run's own events
    // are replayed with the two calls' pieces alternating one by one, the hardest order.
    const starts = events.filter((event) => event.type === 'agentPromptStart');
    const pieces = starts.map((start) => events.filter((event) => event.type === 'agentText' && event.nodeId === start.nodeId));
    expect(pieces.map((list) => list.length > 1)).toEqual([true, true]);
    const alternating = Array.from({ length: Math.max(...pieces.map((list) => list.length)) }, (_, i) => pieces.flatMap((list) => list.slice(i, i + 1))).flat();
    const order = [
      ...events.filter((event) => event.type === 'workflowStart'),
      ...starts,
      ...alternating,
      ...events.filter((event) => event.type === 'agentPromptEnd' || event.type === 'workflowEnd'),
    ];
    const encoder = new UIChunkEncoder({ textField: 'answer', nodes: 'none' });
    const deltas = order
      .flatMap((event, i) => encoder.encode(event, i + 1))
      .filter((c) => c.chunk.type === 'text-delta')
      .map((c) => c.chunk as { id: string; delta: string });
    const parts = [...new Set(deltas.map((d) => d.id))];
    expect(parts).toHaveLength(2);
    const texts = parts.map((id) => deltas.filter((d) => d.id === id).map((d) => d.delta).join(''));
    expect(texts.sort()).toEqual([...answers].sort());
  });
});

describe('the model’s reasoning', () => {
  it('streams as a reasoning part of the call, before its text, where the model gives it', async () => {
    const thought = 'Tides: the moon pulls the sea; write two lines.';
    const model = new ScriptedModel([stream([{ type: 'thinking', thinking: thought, signature: 'sig' }, { type: 'text', text: JSON.stringify(REPORT) }], { chunkSize: 4 })]);
    const writer = createAgent({ name: 'writer', ...(await agentModel(model)) });
    const workflow = createWorkflow({ name: 'thinking', streamText: true }, async (ctx) =>
      ctx.step('write', () => writer.prompt(createPrompt({ user: 'write', responseFormat: Report }))),
    );
    const message = lastMessage(toUIMessageStream(workflow, { textField: 'report', nodes: 'none' }));
    await workflow.run();
    const parts = (await message)?.parts ?? [];
    expect(parts.filter((p) => p.type === 'reasoning' || p.type === 'text').map((p) => [p.type, (p as { text: string }).text])).toEqual([
      ['reasoning', thought],
      ['text', REPORT.report],
    ]);
  });
});

describe('an answer given through the forced answer tool', () => {
  it('streams as text too: the tool’s input is the answer’s JSON, written piece by piece', async () => {
    const model = new ScriptedModel([stream(toolUse('final_answer', REPORT), { chunkSize: 5 })]);
    const writer = createAgent({ name: 'writer', structuredOutput: 'tool', ...(await agentModel(model)) });
    const workflow = createWorkflow({ name: 'tool-mode', streamText: true }, async (ctx) =>
      ctx.step('write', () => writer.prompt(createPrompt({ user: 'write', responseFormat: Report }))),
    );
    const chunks = collect(runChunks(workflow, { textField: 'report', nodes: 'none' }));
    await expect(workflow.run()).resolves.toEqual(REPORT);
    const deltas = (await chunks).filter((c) => c.chunk.type === 'text-delta').map((c) => (c.chunk as { delta: string }).delta);
    expect(deltas.length).toBeGreaterThan(3);
    expect(deltas.join('')).toBe(REPORT.report);
  });
});

describe('a live reader that is behind', () => {
  it('gets the text pieces it has not read yet joined: the same text in fewer chunks', async () => {
    const workflow = await research(script());
    // Subscribed now, read only after the run: every piece of the answer is waiting.
    const chunks = runChunks(workflow, { textField: 'report', nodes: 'none' });
    await workflow.run();
    const deltas = (await collect(chunks)).filter((c) => c.chunk.type === 'text-delta').map((c) => (c.chunk as { delta: string }).delta);
    expect(deltas).toEqual([REPORT.report]);
  });
});

describe('a reader that does not keep up with a live run', () => {
  it('is cut off with an error chunk past its buffer, and the run goes on to the end', async () => {
    const workflow = createWorkflow({ name: 'busy' }, async (ctx) => {
      for (let i = 0; i < 300; i += 1) await ctx.step(`step ${i}`, () => i);
      return 'done';
    });
    // Subscribed now, read only after the run: 600 node chunks wait for a buffer of 50.
    const chunks = runChunks(workflow, { bufferChunks: 50 });
    await expect(workflow.run()).resolves.toBe('done');
    const read = await collect(chunks);
    expect(read).toHaveLength(51);
    expect(read.slice(0, 50).every((c) => c.chunk.type !== 'error')).toBe(true);
    expect(read.at(-1)?.chunk).toEqual({ type: 'error', errorText: expect.stringMatching(/fell behind/) });
    // Its id is the last chunk the run wrote: after every chunk the reader got.
    expect(Number(read.at(-1)?.id)).toBeGreaterThan(Number(read[49]?.id));
  });
});

describe('a durable run’s stream, read from its store', () => {
  it('gives a reader that reconnects after any chunk exactly the chunks after it', async () => {
    const store = new MemoryRunStore();
    const workflow = await research(script(), { durable: { store, runId: 'r1' } });
    await workflow.run();
    const all = await collect(runChunks({ store, runId: 'r1' }, { textField: 'report' }));
    expect(all.at(-1)?.chunk.type).toBe('finish');
    const message = await lastMessage(toUIMessageStream({ store, runId: 'r1' }, { textField: 'report' }));
    expect(message?.id).toBe('r1');
    expect(message?.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text)).toEqual([REPORT.report]);

    for (let i = 0; i < all.length; i += 1) {
      const after = await collect(runChunks({ store, runId: 'r1' }, { textField: 'report', after: (all[i] as RunChunk).id }));
      expect(after).toEqual(all.slice(i + 1));
    }
  });
});
