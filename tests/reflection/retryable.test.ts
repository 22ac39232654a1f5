import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  defineTool,
  isRetryable,
  MaxTurnsExceededError,
  StructuredOutputError,
  WorkflowError,
} from 'groundswell';
import { httpError, json, malformedJson, ScriptedModel, toolUse, type ScriptStep } from 'groundswell/testing';
import { failed, onlyChild, runInStep, runningNodes } from '../support/agent-helpers.js';
import { caught } from '../support/decorators-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';
import { Count, lessonsBlock, nodesOfKind, revision } from './helpers.js';

const ask = () => createPrompt({ name: 'count', user: 'How many?', responseFormat: Count });

describe('errors a retry cannot fix are not reflected on', () => {
  const FINAL: ReadonlyArray<[number, abstract new (...args: never[]) => Error]> = [
    [401, Anthropic.AuthenticationError],
    [400, Anthropic.BadRequestError],
  ];

  it.each(FINAL)('%i with agent-level reflection: no reflection node, one request, the SDK error passes through', async (status, errorClass) => {
    const model = new ScriptedModel([httpError(status)]);
    const agent = createAgent({ name: 'counter', client: model.client({ maxRetries: 2 }), enableReflection: { maxAttempts: 3 } });
    const run = await runInStep(() => agent.prompt(ask()));
    const error = failed(run.outcome);
    expect(error).toBeInstanceOf(WorkflowError);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(errorClass);
    expect(isRetryable(cause)).toBe(false);
    expect(model.requests).toHaveLength(1);
    expect(nodesOfKind(run.workflow.node, 'reflection')).toEqual([]);
    expect(eventsOfType(run.recording.events, 'reflectionStart')).toEqual([]);
    expect(onlyChild(run.step, 'agentPrompt').status).toBe('failed');
    expect(runningNodes(run.workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it.each(FINAL)('%i through agent.reflect outside a workflow: rejects with the SDK error after one request', async (status, errorClass) => {
    const model = new ScriptedModel([httpError(status)]);
    const agent = createAgent({ name: 'counter', client: model.client({ maxRetries: 0 }) });
    expect(await caught(() => agent.reflect(ask()))).toBeInstanceOf(errorClass);
    expect(model.requests).toHaveLength(1);
    model.assertComplete();
  });

  it.each(FINAL)('%i with workflow-level reflection: the step is not reflected on or retried', async (status, errorClass) => {
    const model = new ScriptedModel([httpError(status)]);
    const agent = createAgent({ name: 'counter', client: model.client({ maxRetries: 0 }) });
    const reflector = createAgent({ name: 'coach', client: model.client() });
    const workflow = createWorkflow({ name: 'flow', clock: new FakeClock(), enableReflection: { agent: reflector, maxAttempts: 3 } }, (ctx) =>
      ctx.step('ask', () => agent.prompt(ask())),
    );
    const recording = record(workflow);
    const error = await caught(() => workflow.run());
    expect((error as WorkflowError).cause).toBeInstanceOf(errorClass);
    expect(model.requests).toHaveLength(1);
    expect(nodesOfKind(workflow.node, 'reflection')).toEqual([]);
    expect(eventsOfType(recording.events, 'stepRetry')).toEqual([]);
    expect(eventsOfType(recording.events, 'stepEnd')).toEqual([expect.objectContaining({ name: 'ask', status: 'failed', attempts: 1 })]);
    model.assertComplete();
  });
});

describe('failures a retry can fix are reflected on', () => {
  const answerTool = defineTool({ name: 'lookup', description: 'Looks up the count.', input: z.object({}), execute: () => '5' });

  const CASES: ReadonlyArray<{ label: string; failure: ScriptStep; errorClass: abstract new (...args: never[]) => Error; maxTurns?: number }> = [
    { label: 'malformed JSON', failure: malformedJson('{"n": 5, "note": "cut off mid-'), errorClass: StructuredOutputError },
    { label: 'schema mismatch', failure: json({ n: 'five' }), errorClass: StructuredOutputError },
    { label: 'maxTurns exceeded', failure: toolUse('lookup', {}), errorClass: MaxTurnsExceededError, maxTurns: 1 },
  ];

  it.each(CASES)('$label: one reflection, then the retry succeeds with the guidance', async ({ failure, errorClass, maxTurns }) => {
    const model = new ScriptedModel([failure, revision('what went wrong', 'Answer directly as JSON.'), json({ n: 5 })]);
    const agent = createAgent({
      name: 'counter',
      client: model.client(),
      tools: [answerTool],
      enableReflection: true,
      ...(maxTurns === undefined ? {} : { maxTurns }),
    });
    const run = await runInStep(() => agent.prompt(ask()));
    expect(run.outcome).toEqual({ ok: true, value: { n: 5 } });
    expect(model.requests).toHaveLength(3);
    const [start] = eventsOfType(run.recording.events, 'reflectionStart');
    expect(start).toMatchObject({ level: 'agent', attempt: 1, error: { name: errorClass.name } });
    expect(onlyChild(onlyChild(run.step, 'agentPrompt'), 'reflection').status).toBe('completed');
    expect(lessonsBlock(model.requests[2])).toContain('Answer directly as JSON.');
    model.assertComplete();
  });

  it('the reflector is told about the failure: the validation issues and the raw answer', async () => {
    const model = new ScriptedModel([json({ n: 'five' }), revision('c', 'g'), json({ n: 5 })]);
    const agent = createAgent({ name: 'counter', client: model.client(), enableReflection: true });
    await agent.prompt(ask());
    const shown = model.requests[1]?.firstUserText ?? '';
    expect(shown).toContain('How many?');
    expect(shown).toMatch(/<failure>[\s\S]*- n: [\s\S]*<\/failure>/);
    expect(shown).toContain('{"n":"five"}');
    model.assertComplete();
  });
});
