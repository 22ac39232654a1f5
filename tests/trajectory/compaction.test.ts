import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, type ContextCompactedEvent, type TrajectoryCheckpointEvent, type WorkflowEvent } from 'groundswell';
import { ScriptedModel, json, toolUse, type RecordedRequest } from 'groundswell/testing';
import { agentModel } from '../support/model-path.js';

const Done = z.object({ done: z.boolean() });
const fetchPage = defineTool({
  name: 'fetch_page',
  description: 'Fetch a page',
  effect: 'read',
  target: (input) => input.url,
  input: z.object({ url: z.string() }),
  execute: ({ url }) => `${url}: ${'lorem ipsum '.repeat(40)}`,
});

async function longLoop(strategy: 'drop' | 'summarize', pages = 6) {
  const steps = Array.from({ length: pages }, (_, i) => toolUse('fetch_page', { url: `https://example.test/${i + 1}` }));
  const model = new ScriptedModel([...steps, json({ done: true })]);
  const agent = createAgent({
    name: 'reader',
    ...(await agentModel(model)),
    tools: [fetchPage],
    maxTurns: pages + 2,
    trajectory: { checkpoint: 'always', contextBudget: { maxChars: 2_500, strategy, keepTurns: 2 } },
  });
  const events: WorkflowEvent[] = [];
  const wf = createWorkflow({ name: 'crawl', goal: 'Read every page' }, (ctx) =>
    ctx.step('read', () => agent.prompt(createPrompt({ user: 'Read the pages', responseFormat: Done }))),
  );
  wf.addObserver({ onEvent: (e) => events.push(e) });
  await wf.run();
  model.assertComplete();
  return { model, events };
}

function messagesOf(request: RecordedRequest | undefined): Array<{ role: string; content: unknown }> {
  return (request?.body.messages ?? []) as Array<{ role: string; content: unknown }>;
}

describe('context budget', () => {
  it('compacts older turns once the history is over budget, and says so in the tree', async () => {
    const { model, events } = await longLoop('drop');
    const compactions = events.filter((e): e is ContextCompactedEvent => e.type === 'contextCompacted');
    expect(compactions.length).toBeGreaterThan(0);
    for (const c of compactions) expect(c.afterChars).toBeLessThan(c.beforeChars);
    const last = messagesOf(model.lastRequest);
    // First user message, then at most keepTurns (2) assistant/tool-result pairs, then nothing else.
    expect(last.length).toBeLessThanOrEqual(1 + 2 * 2);
    expect(JSON.stringify(last[0]?.content)).toContain('Earlier turns compacted');
  });

  it('keeps every tool_result next to the tool_use it answers', async () => {
    const { model } = await longLoop('drop');
    for (const request of model.requests) {
      const messages = messagesOf(request);
      messages.forEach((message, i) => {
        if (message.role !== 'user' || !Array.isArray(message.content)) return;
        const results = (message.content as Array<{ type: string; tool_use_id?: string }>).filter((b) => b.type === 'tool_result');
        if (results.length === 0) return;
        const previous = messages[i - 1];
        const uses = ((previous?.content ?? []) as Array<{ type: string; id?: string }>).filter((b) => b.type === 'tool_use').map((b) => b.id);
        for (const result of results) expect(uses).toContain(result.tool_use_id);
      });
    }
  });

  it('summarize: the note lists the compacted tool calls with their evidence labels', async () => {
    const { model } = await longLoop('summarize');
    const note = JSON.stringify(messagesOf(model.lastRequest)[0]?.content);
    expect(note).toContain('[turn 1/tool_result] fetch_page on https://example.test/1');
  });

  it('the checkpoint keeps its evidence references through compaction', async () => {
    const { events } = await longLoop('drop');
    const lastCheckpoint = events.filter((e): e is TrajectoryCheckpointEvent => e.type === 'trajectoryCheckpoint').at(-1);
    const labels = lastCheckpoint?.checkpoint.groundedFacts.map((f) => f.evidence) ?? [];
    expect(labels.length).toBeGreaterThan(0);
    // Facts are drawn from the run's observations, not from the (compacted) messages.
    expect(labels).toContain('[turn 6/tool_result]');
    expect(lastCheckpoint?.checkpoint.trigger).toBeDefined();
  });

  it('is off unless configured: the history is sent whole', async () => {
    const model = new ScriptedModel([toolUse('fetch_page', { url: 'a' }), toolUse('fetch_page', { url: 'b' }), toolUse('fetch_page', { url: 'c' }), json({ done: true })]);
    const agent = createAgent({ name: 'reader', ...(await agentModel(model)), tools: [fetchPage] });
    await agent.prompt(createPrompt({ user: 'Read', responseFormat: Done }));
    expect(messagesOf(model.lastRequest)).toHaveLength(7);
    model.assertComplete();
  });

  it('refuses a budget that is not a positive integer', () => {
    expect(() => createAgent({ name: 'x', trajectory: { contextBudget: { maxChars: 0 } } })).toThrow(/contextBudget/);
  });
});
