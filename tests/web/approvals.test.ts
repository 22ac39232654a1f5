import { describe, expect, it } from 'vitest';
import type { UIMessage } from 'ai';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, isSuspension, UsageError } from 'groundswell';
import { MemoryRunStore } from 'groundswell/durable';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { answerApproval, runChunks, toUIMessageStream, type RunChunk, type UIChunk } from 'groundswell/web';
import { agentModel } from '../support/model-path.js';
import { toolResultsOf, resultText } from '../support/agent-helpers.js';
import { collect, lastMessage } from './stream-reading.js';

const Answer = z.object({ answer: z.string() });

/** A refund desk: the agent asks to refund; refunds over 10 need a person's approval. */
async function desk(model: ScriptedModel, refunds: number[], store?: MemoryRunStore) {
  const refund = defineTool({
    name: 'refund',
    description: 'Refunds an amount.',
    input: z.object({ amount: z.number() }),
    needsApproval: ({ amount }) => amount > 10,
    execute: ({ amount }) => {
      refunds.push(amount);
      return `refunded ${amount}`;
    },
  });
  const agent = createAgent({ name: 'clerk', tools: [refund], ...(await agentModel(model)) });
  return () =>
    createWorkflow({ name: 'desk', streamText: true, ...(store === undefined ? {} : { durable: { store, runId: 'refund-1' } }) }, async (ctx) =>
      ctx.step('answer', () => agent.prompt(createPrompt({ user: 'refund order 7', responseFormat: Answer }))),
    );
}

async function chunksUntil(store: MemoryRunStore, stop: (chunk: UIChunk) => boolean): Promise<RunChunk[]> {
  const out: RunChunk[] = [];
  for await (const chunk of runChunks({ store, runId: 'refund-1' })) {
    out.push(chunk);
    if (stop(chunk.chunk)) break;
  }
  return out;
}

/** The message as the AI SDK builds it from the run's stream so far (the run is suspended: the stream is cut there). */
async function messageUntil(store: MemoryRunStore, stop: (chunk: UIChunk) => boolean): Promise<UIMessage | undefined> {
  const chunks = (await chunksUntil(store, stop)).map((c) => c.chunk);
  return lastMessage(new ReadableStream<UIChunk>({ start: (c) => (chunks.forEach((chunk) => c.enqueue(chunk)), c.close()) }));
}

function approvalRequest(chunks: readonly RunChunk[]): { approvalId: string; toolCallId: string } {
  const found = chunks.find((c) => c.chunk.type === 'tool-approval-request')?.chunk as { approvalId: string; toolCallId: string } | undefined;
  if (found === undefined) throw new Error('no approval request in the stream');
  return found;
}

async function answer(store: MemoryRunStore, build: () => ReturnType<Awaited<ReturnType<typeof desk>>>, body: object) {
  let resumed!: (outcome: { result?: unknown; error?: unknown }) => void;
  const outcome = new Promise<{ result?: unknown; error?: unknown }>((resolve) => (resumed = resolve));
  const response = await answerApproval(new Request('http://app.test/approve', { method: 'POST', body: JSON.stringify(body) }), {
    store,
    workflows: { desk: build },
    onResumed: (_id, result) => resumed(result),
  });
  return { response, outcome };
}

describe('tool calls that need approval', () => {
  it('suspend the run with an approval request in the stream; approving runs the tool and goes on without asking the model again', async () => {
    const store = new MemoryRunStore();
    const refunds: number[] = [];
    const model = new ScriptedModel([toolUse('refund', { amount: 25 }), json({ answer: 'Refunded 25.' })]);
    const build = await desk(model, refunds, store);

    const stopped = await build().run().catch((error: unknown) => error);
    expect(isSuspension(stopped)).toBe(true);
    expect(refunds).toEqual([]);
    const record = await store.getRun('refund-1');
    expect(record?.status).toBe('suspended');
    expect(record?.waitingFor?.name).toMatch(/^approval of refund \(.+\)$/);

    const partial = await messageUntil(store, (chunk) => chunk.type === 'tool-approval-request');
    const part = partial?.parts.find((p) => p.type === 'dynamic-tool') as { state: string; input: unknown; approval?: { id: string } } | undefined;
    expect(part).toMatchObject({ state: 'approval-requested', input: { amount: 25 }, approval: { id: record?.waitingFor?.name } });

    // The run is suspended: its stream stays open (it goes on when the run does), so it is read up to the request.
    const request = approvalRequest(await chunksUntil(store, (chunk) => chunk.type === 'tool-approval-request'));
    expect(request.approvalId).toBe(record?.waitingFor?.name);

    const { response, outcome } = await answer(store, build, { runId: 'refund-1', approvalId: request.approvalId, approved: true });
    expect(response.status).toBe(202);
    expect(await outcome).toEqual({ result: { answer: 'Refunded 25.' } });
    expect(refunds).toEqual([25]);
    // One request before the approval, one after: the first was not sent again on resume.
    expect(model.requests).toHaveLength(2);
    expect(resultText(toolResultsOf(model.requests[1])[0])).toBe('refunded 25');

    const all = await collect(runChunks({ store, runId: 'refund-1' }, { textField: 'answer' }));
    expect(all.at(-1)?.chunk.type).toBe('finish');
    const final = await lastMessage(toUIMessageStream({ store, runId: 'refund-1' }, { textField: 'answer' }));
    expect(final?.parts.find((p) => p.type === 'dynamic-tool')).toMatchObject({ state: 'output-available', output: 'refunded 25' });

    // The call shows twice, once per process: suspended at the approval, then completed. Its
    // tokens are shown once: the resumed node has only what was spent after the approval.
    const calls = final?.parts.filter((p) => p.type === 'data-node' && (p as { data: { kind: string } }).data.kind === 'agent').map((p) => (p as { data: { status: string; usage?: { inputTokens: number; outputTokens: number } } }).data);
    expect(calls?.map((c) => c.status)).toEqual(['suspended', 'completed']);
    const stored = (await store.loadRun('refund-1')).calls[0]?.usage;
    const shown = (calls ?? []).reduce((sum, c) => sum + (c.usage?.inputTokens ?? 0) + (c.usage?.outputTokens ?? 0), 0);
    expect(shown).toBe((stored?.inputTokens ?? -1) + (stored?.outputTokens ?? -1));
    expect(calls?.every((c) => (c.usage?.inputTokens ?? 0) > 0)).toBe(true);
    expect(final?.parts.filter((p) => p.type === 'text').map((p) => (p as { text: string }).text).at(-1)).toBe('Refunded 25.');
  });

  it('feeds a denial back to the model as the tool’s result, and the tool never runs', async () => {
    const store = new MemoryRunStore();
    const refunds: number[] = [];
    const model = new ScriptedModel([toolUse('refund', { amount: 99 }), json({ answer: 'I could not refund it.' })]);
    const build = await desk(model, refunds, store);
    await build().run().catch(() => undefined);
    const approvalId = (await store.getRun('refund-1'))?.waitingFor?.name as string;

    const { response, outcome } = await answer(store, build, { runId: 'refund-1', approvalId, approved: false, reason: 'over the limit' });
    expect(response.status).toBe(202);
    expect(await outcome).toEqual({ result: { answer: 'I could not refund it.' } });
    expect(refunds).toEqual([]);
    expect(model.requests).toHaveLength(2);
    expect(resultText(toolResultsOf(model.requests[1])[0])).toBe('Denied by the user: over the limit');
    const chunks = await collect(runChunks({ store, runId: 'refund-1' }));
    expect(chunks.filter((c) => c.chunk.type === 'tool-output-denied')).toHaveLength(1);
    expect(chunks.filter((c) => c.chunk.type === 'tool-output-available')).toHaveLength(0);
  });

  it('runs a call its test lets through without asking, and refuses a wrong approval id with 409 storing nothing', async () => {
    const store = new MemoryRunStore();
    const refunds: number[] = [];
    const model = new ScriptedModel([toolUse('refund', { amount: 5 }), toolUse('refund', { amount: 50 }), json({ answer: 'done' })]);
    const build = await desk(model, refunds, store);
    await build().run().catch(() => undefined);
    expect(refunds).toEqual([5]);
    const wrong = await answer(store, build, { runId: 'refund-1', approvalId: 'approval of refund (nope)', approved: true });
    expect(wrong.response.status).toBe(409);
    expect((await store.loadRun('refund-1')).signals).toHaveLength(0);
    const bad = await answer(store, build, { runId: 'refund-1', approved: 'yes' });
    expect(bad.response.status).toBe(400);
  });

  it('needs a durable run: outside one the call fails with a UsageError that says so', async () => {
    const model = new ScriptedModel([toolUse('refund', { amount: 25 })]);
    const build = await desk(model, []);
    const error = await build().run().catch((e: unknown) => e);
    expect(String(error)).toMatch(/needs approval.*only a durable run can wait for it/);
    expect(error instanceof UsageError || (error as { cause?: unknown }).cause instanceof UsageError).toBe(true);
  });
});
