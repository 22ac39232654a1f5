import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow } from 'groundswell';
import type { McpServerConfig } from 'groundswell/mcp';
import { otelObserver } from 'groundswell/otel';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { createInProcessServer } from '../mcp/fixtures/in-process-server.js';
import { childrenOf, memoryTracing, named } from './span-helpers.js';

const Answer = z.object({ answer: z.string() });

describe('groundswell/otel: MCP tools and reflection passes', () => {
  it('an MCP tool call is execute_tool (type extension, its server named); connect and close are span events', async () => {
    const tracing = memoryTracing();
    const { server } = createInProcessServer();
    const mcps: McpServerConfig[] = [{ name: 'kb', transport: 'in-process', server }];
    const model = new ScriptedModel([
      toolUse('mcp__kb__echo', { text: 'ping' }, { id: 'toolu_echo' }),
      toolUse('mcp__kb__fail', {}, { id: 'toolu_fail' }),
      json({ answer: 'pong' }),
    ]);
    const agent = createAgent({ name: 'mcp-user', client: model.client(), mcps });
    const workflow = createWorkflow({ name: 'mcp' }, (ctx) => ctx.step('ask', () => agent.prompt(createPrompt({ user: 'Echo ping', responseFormat: Answer }))));
    workflow.addObserver(await otelObserver({ tracerProvider: tracing.provider, captureContent: true }));
    expect(await workflow.run()).toEqual({ answer: 'pong' });
    const spans = tracing.spans();
    const [call] = named(spans, 'invoke_agent mcp-user');
    expect(childrenOf(call as ReadableSpan, spans).map((span) => span.name)).toEqual([
      'chat claude-sonnet-5-5',
      'execute_tool mcp__kb__echo',
      'chat claude-sonnet-5-5',
      'execute_tool mcp__kb__fail',
      'chat claude-sonnet-5-5',
    ]);
    const [echo] = named(spans, 'execute_tool mcp__kb__echo');
    expect(echo?.attributes).toMatchObject({
      'gen_ai.tool.type': 'extension',
      'gen_ai.tool.call.id': 'toolu_echo',
      'groundswell.mcp.server': 'kb',
      'gen_ai.tool.call.arguments': '{"text":"ping"}',
      'gen_ai.tool.call.result': 'ping',
    });
    const [fail] = named(spans, 'execute_tool mcp__kb__fail');
    expect(fail?.status.code).toBe(2);
    expect(fail?.attributes['error.type']).toBe('tool_error');
    expect(call?.events.map((event) => [event.name, event.attributes?.['groundswell.mcp.server']])).toEqual([
      ['groundswell.mcp_connected', 'kb'],
      ['groundswell.mcp_closed', 'kb'],
    ]);
  });

  it('a reflection pass is a reflection span under the call, with its own invoke_agent; the retry’s chat spans follow', async () => {
    const tracing = memoryTracing();
    const Count = z.object({ n: z.number() });
    const model = new ScriptedModel([
      json({ n: 'five' }),
      json({ critique: 'n must be a number.', revisedUser: null, guidance: 'Answer n as a JSON number.' }),
      json({ n: 5 }),
    ]);
    const agent = createAgent({ name: 'counter', client: model.client() });
    const workflow = createWorkflow({ name: 'count' }, (ctx) =>
      ctx.step('count', () => agent.prompt(createPrompt({ name: 'count', user: 'How many?', responseFormat: Count, enableReflection: true }))),
    );
    workflow.addObserver(await otelObserver({ tracerProvider: tracing.provider }));
    expect(await workflow.run()).toEqual({ n: 5 });
    const spans = tracing.spans();
    const [call] = named(spans, 'invoke_agent counter');
    expect(childrenOf(call as ReadableSpan, spans).map((span) => span.name)).toEqual([
      'chat claude-sonnet-5-5',
      'reflection reflect on attempt 1 (prompt)',
      'chat claude-sonnet-5-5',
    ]);
    const [reflection] = named(spans, 'reflection reflect on attempt 1 (prompt)');
    expect(childrenOf(reflection as ReadableSpan, spans).map((span) => span.name)).toEqual(['invoke_agent counter (reflection)']);
    expect(reflection?.events.map((event) => [event.name, event.attributes?.['groundswell.reflection.level']])).toEqual([
      ['groundswell.reflection_start', 'prompt'],
      ['groundswell.reflection_end', 'prompt'],
    ]);
    // Content is off: the critique stays off the span.
    expect(JSON.stringify(reflection?.events)).not.toContain('n must be a number');
    expect(reflection?.attributes['groundswell.status']).toBe('completed');
  });
});
