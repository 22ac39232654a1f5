import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createPrompt, createWorkflow, usageRollup, type WorkflowEvent, type WorkflowNode } from 'groundswell';
import { otelObserver } from 'groundswell/otel';
import { eventsOfType } from '../support/events.js';
import { MODEL, releaseRun, reviewer, SECRET, signOffAgent, twoTurnModel } from './scripted-run.js';
import { childrenOf, hrMs, memoryTracing, named, parentOf, sumAttribute } from './span-helpers.js';

function* walk(root: WorkflowNode): Generator<WorkflowNode> {
  const stack = [root];
  while (stack.length > 0) {
    const node = stack.pop() as WorkflowNode;
    yield node;
    stack.push(...node.children);
  }
}

function spanOfNode(spans: readonly ReadableSpan[], node: WorkflowNode): ReadableSpan {
  const found = spans.filter((span) => span.attributes['groundswell.node.id'] === node.id);
  if (found.length !== 1) throw new Error(`expected one span for ${node.kind} "${node.name}", found ${found.length}`);
  return found[0] as ReadableSpan;
}

const EXPECTED_NAME: Record<string, (node: WorkflowNode) => string> = {
  workflow: (node) => `workflow ${node.name}`,
  step: (node) => `step ${node.name}`,
  task: (node) => `task ${node.name}`,
  agentPrompt: () => 'invoke_agent reviewer',
  toolCall: (node) => `execute_tool ${node.name}`,
};

async function tracedRelease(options: { failNotes?: boolean; captureContent?: boolean } = {}) {
  const tracing = memoryTracing();
  const model = twoTurnModel();
  const { workflow } = releaseRun(reviewer(model), options);
  const events: WorkflowEvent[] = [];
  workflow.addObserver({ onEvent: (event) => events.push(event) });
  const observer = await otelObserver({ tracerProvider: tracing.provider, captureContent: options.captureContent === true });
  workflow.addObserver(observer);
  const outcome = await workflow.run().then(
    () => undefined,
    (error: unknown) => error,
  );
  return { tracing, spans: tracing.spans(), workflow, observer, events, outcome, model };
}

describe('groundswell/otel: the span tree', () => {
  it('has one span per node, parented exactly as the tree, with the tree’s start and end times', async () => {
    const { spans, workflow, observer, outcome } = await tracedRelease();
    expect(outcome).toBeUndefined();
    const nodes = [...walk(workflow.node)];
    expect(nodes.map((node) => node.kind).sort()).toEqual(['agentPrompt', 'step', 'step', 'step', 'task', 'toolCall', 'workflow', 'workflow', 'workflow']);
    for (const node of nodes) {
      const span = spanOfNode(spans, node);
      expect(span.name).toBe(EXPECTED_NAME[node.kind]?.(node));
      expect(parentOf(span, spans)?.attributes['groundswell.node.id']).toBe(node.parent?.id);
      expect(hrMs(span.startTime)).toBe(node.startTime);
      // A tool reports before its node finishes: its span ends with the report.
      if (node.kind === 'toolCall') expect(hrMs(span.endTime)).toBeLessThanOrEqual(node.endTime ?? 0);
      else expect(hrMs(span.endTime)).toBe(node.endTime);
      expect(span.attributes['groundswell.status']).toBe(node.status);
    }
    // One trace; the root span has no parent; nothing is left open.
    expect(new Set(spans.map((span) => span.spanContext().traceId)).size).toBe(1);
    expect(spanOfNode(spans, workflow.node).parentSpanContext).toBeUndefined();
    expect(observer.openSpans).toBe(0);
  });

  it('an agent call is invoke_agent with a chat span per model request and execute_tool for its tool call', async () => {
    const { spans } = await tracedRelease();
    const [agent] = named(spans, 'invoke_agent reviewer');
    expect(agent).toBeDefined();
    const children = childrenOf(agent as ReadableSpan, spans);
    expect(children.map((span) => span.name)).toEqual([`chat ${MODEL}`, 'execute_tool add', `chat ${MODEL}`]);
    const [first, tool, second] = children as [ReadableSpan, ReadableSpan, ReadableSpan];
    // In order: the first answer before the tool ran, the tool before the second request.
    expect(hrMs(first.endTime)).toBeLessThanOrEqual(hrMs(tool.startTime));
    expect(hrMs(tool.endTime)).toBeLessThanOrEqual(hrMs(second.startTime));
    expect(first.kind).toBe(2); // CLIENT
    expect(first.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'anthropic',
      'gen_ai.system': 'anthropic',
      'gen_ai.request.model': MODEL,
      'gen_ai.response.model': MODEL,
      'gen_ai.usage.input_tokens': 26,
      'gen_ai.usage.output_tokens': 10,
      'gen_ai.usage.cache_read.input_tokens': 2,
      'gen_ai.usage.cache_creation.input_tokens': 4,
      'gen_ai.response.finish_reasons': ['tool_use'],
      'groundswell.turn': 1,
    });
    expect(second.attributes['gen_ai.response.finish_reasons']).toEqual(['end_turn']);
    expect(tool.attributes).toMatchObject({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'add',
      'gen_ai.tool.call.id': 'toolu_add_1',
      'gen_ai.tool.type': 'function',
    });
    expect(agent?.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.agent.name': 'reviewer',
      'gen_ai.request.model': MODEL,
      'gen_ai.response.model': MODEL,
      'gen_ai.usage.input_tokens': 136,
      'gen_ai.usage.output_tokens': 60,
      'groundswell.cached': false,
      'groundswell.replayed': false,
      'groundswell.turns': 2,
    });
  });

  it('summed gen_ai.usage.* over the chat spans equals the tree’s usage rollup', async () => {
    const { spans, workflow } = await tracedRelease();
    const total = usageRollup(workflow.node).get(workflow.node);
    expect(total).toBeDefined();
    const chats = spans.filter((span) => span.attributes['gen_ai.operation.name'] === 'chat');
    expect(chats).toHaveLength(2);
    // The conventions count prompt-cache reads and writes inside input_tokens.
    expect(sumAttribute(chats, 'gen_ai.usage.input_tokens')).toBe(
      (total?.inputTokens ?? 0) + (total?.cacheReadInputTokens ?? 0) + (total?.cacheCreationInputTokens ?? 0),
    );
    expect(sumAttribute(chats, 'gen_ai.usage.output_tokens')).toBe(total?.outputTokens);
    expect(sumAttribute(chats, 'gen_ai.usage.cache_read.input_tokens')).toBe(total?.cacheReadInputTokens);
    expect(sumAttribute(chats, 'gen_ai.usage.cache_creation.input_tokens')).toBe(total?.cacheCreationInputTokens);
  });

  it('content stays off spans by default; with captureContent it shows, masked', async () => {
    const off = await tracedRelease();
    const offText = JSON.stringify(off.spans.map((span) => span.attributes));
    expect(offText).not.toContain('gen_ai.tool.call.result');
    expect(offText).not.toContain('gen_ai.output.messages');
    expect(offText).not.toContain('Add 2 and 3');

    const on = await tracedRelease({ captureContent: true });
    const [tool] = named(on.spans, 'execute_tool add');
    expect(tool?.attributes['gen_ai.tool.call.arguments']).toBe('{"a":2,"b":3}');
    expect(tool?.attributes['gen_ai.tool.call.result']).toBe('5 (token ***)');
    const [agent] = named(on.spans, 'invoke_agent reviewer');
    expect(JSON.parse(String(agent?.attributes['gen_ai.output.messages']))).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: '{"answer":"five"}' }], finish_reason: 'end_turn' },
    ]);
    expect(JSON.stringify(on.spans.map((span) => [span.attributes, span.events]))).not.toContain(SECRET);
  });

  it('errors: span status ERROR and the serialized error recorded as an exception, secrets masked', async () => {
    const { spans, outcome } = await tracedRelease({ failNotes: true });
    expect(outcome).toBeInstanceOf(Error);
    const [write] = named(spans, 'step write');
    expect(write?.status.code).toBe(2);
    expect(write?.status.message).toBe('WorkflowError: Step "write" of workflow "notes" failed: upload refused for token ***');
    expect(write?.attributes['error.type']).toBe('WorkflowError');
    const exception = write?.events.find((event) => event.name === 'exception');
    expect(exception?.attributes?.['exception.message']).toBe('Step "write" of workflow "notes" failed: upload refused for token ***');
    expect(exception?.attributes?.['exception.type']).toBe('WorkflowError');
    expect(exception?.attributes?.['exception.stacktrace']).toContain('WorkflowError');
    for (const name of ['workflow notes', 'task reviews', 'workflow release']) {
      expect(named(spans, name)[0]?.status.code, name).toBe(2);
    }
    expect(named(spans, 'step prepare')[0]?.status.code).toBe(0);
    expect(JSON.stringify(spans.map((span) => [span.attributes, span.events, span.status]))).not.toContain(SECRET);
  });

  it('checkpoints and goal sign-offs are span events with revision, assessment and verdict', async () => {
    const tracing = memoryTracing();
    const { agent, worker, judge } = signOffAgent();
    const workflow = createWorkflow({ name: 'work' }, (ctx) =>
      ctx.step('finish', () => agent.prompt(createPrompt({ user: 'Finish', responseFormat: z.object({ done: z.boolean() }) }))),
    );
    const events: WorkflowEvent[] = [];
    workflow.addObserver({ onEvent: (event) => events.push(event) });
    workflow.addObserver(await otelObserver({ tracerProvider: tracing.provider }));
    expect(await workflow.run()).toEqual({ done: true });
    worker.assertComplete();
    judge.assertComplete();
    const spans = tracing.spans();
    const checkpoints = eventsOfType(events, 'trajectoryCheckpoint');
    const signOffs = eventsOfType(events, 'goalSignOff');
    expect(checkpoints.length).toBeGreaterThan(0);
    expect(signOffs).toHaveLength(1);
    const spanEvents = spans.flatMap((span) => span.events.map((event) => ({ span: span.name, ...event })));
    expect(spanEvents.filter((event) => event.name === 'groundswell.checkpoint').map((event) => [event.span, event.attributes])).toEqual(
      checkpoints.map((event) => [
        'invoke_agent worker',
        expect.objectContaining({
          'groundswell.checkpoint.revision': event.revision,
          'groundswell.checkpoint.assessment': event.assessment,
          'groundswell.checkpoint.injected': event.injected,
        }),
      ]),
    );
    const signOff = spanEvents.find((event) => event.name === 'groundswell.goal_sign_off');
    expect(signOff?.attributes).toMatchObject({
      'groundswell.goal': 'the report lists every team',
      'groundswell.sign_off.verdict': 'accept',
      'groundswell.sign_off.judge_failed': false,
    });
  });

  it('step retries and cache hits and misses are span events on their node’s span', async () => {
    const tracing = memoryTracing();
    const { LruCacheStore } = await import('groundswell/cache');
    const agent = reviewer(twoTurnModel(), { enableCache: true, cache: new LruCacheStore() });
    let tries = 0;
    const workflow = createWorkflow({ name: 'flaky' }, async (ctx) => {
      await ctx.step(
        'shaky',
        () => {
          tries += 1;
          if (tries === 1) throw new Error('first try fails');
        },
        { retry: { maxAttempts: 2, backoffMs: 0 } },
      );
      for (const name of ['ask', 'ask again']) {
        await ctx.step(name, () => agent.prompt(createPrompt({ name: 'add', user: 'Add 2 and 3.', responseFormat: z.object({ answer: z.string() }) })));
      }
    });
    workflow.addObserver(await otelObserver({ tracerProvider: tracing.provider }));
    await workflow.run();
    const spans = tracing.spans();
    const [shaky] = named(spans, 'step shaky');
    expect(shaky?.events.map((event) => [event.name, event.attributes?.['groundswell.attempt'], event.attributes?.['groundswell.error.message']])).toEqual([
      ['groundswell.step_retry', 1, 'first try fails'],
    ]);
    expect(shaky?.attributes['groundswell.step.attempts']).toBe(2);
    expect(shaky?.status.code).toBe(0);
    const agentSpans = named(spans, 'invoke_agent reviewer');
    expect(agentSpans.map((span) => span.events.map((event) => [event.name, event.attributes?.['groundswell.cache.miss_reason']]))).toEqual([
      [['groundswell.cache_miss', 'absent']],
      [['groundswell.cache_hit', undefined]],
    ]);
    expect(agentSpans.map((span) => span.attributes['groundswell.cached'])).toEqual([false, true]);
    // A hit sends no request: no chat span beneath it, no tokens.
    expect(childrenOf(agentSpans[1] as ReadableSpan, spans)).toEqual([]);
    expect(agentSpans[1]?.attributes['gen_ai.usage.input_tokens']).toBe(0);
  });
});
