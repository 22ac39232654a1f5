import { describe, expect, it } from 'vitest';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  GroundswellError,
  ReflectionFailedError,
  StructuredOutputError,
  WorkflowError,
} from 'groundswell';
import { httpError, json, malformedJson, ScriptedModel } from 'groundswell/testing';
import { failed, onlyChild, runInStep, runningNodes } from '../support/agent-helpers.js';
import { caught } from '../support/decorators-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';
import { Count, nodesOfKind, revision } from './helpers.js';

const ask = () => createPrompt({ name: 'count', user: 'How many?', responseFormat: Count });

describe('a reflection pass that itself fails (agent level)', () => {
  it('throws a ReflectionFailedError naming both failures; the reflection node fails; nothing is left running', async () => {
    const model = new ScriptedModel([json({ n: 'five' }), malformedJson('{"critique": "the answer was cut')]);
    const agent = createAgent({ name: 'counter', client: model.client(), enableReflection: { maxAttempts: 3 } });
    const run = await runInStep(() => agent.prompt(ask()));

    const error = failed(run.outcome);
    expect(error).toBeInstanceOf(WorkflowError);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(ReflectionFailedError);
    expect(cause).toBeInstanceOf(GroundswellError);
    const reflectionError = cause as ReflectionFailedError;
    expect(reflectionError.level).toBe('agent');
    expect(reflectionError.attempt).toBe(1);
    // The failure it was reflecting on, and why the reflection failed.
    expect(reflectionError.original).toBeInstanceOf(StructuredOutputError);
    expect(reflectionError.cause).toBeInstanceOf(StructuredOutputError);
    expect(reflectionError.message).toContain('Reflection (agent level) on attempt 1 failed');
    expect(reflectionError.message).toContain('not valid JSON');
    expect(reflectionError.message).toContain((reflectionError.original as Error).message);

    // Not retried again after the failed pass, even with attempts to spare.
    expect(model.requests).toHaveLength(2);

    const promptNode = onlyChild(run.step, 'agentPrompt');
    const reflection = onlyChild(promptNode, 'reflection');
    expect(promptNode.status).toBe('failed');
    expect(reflection.status).toBe('failed');
    expect(onlyChild(reflection, 'agentPrompt').status).toBe('failed');
    expect(run.step.status).toBe('failed');
    expect(run.workflow.status).toBe('failed');
    expect(runningNodes(run.workflow.node)).toEqual([]);

    expect(eventsOfType(run.recording.events, 'reflectionEnd')).toEqual([
      expect.objectContaining({ nodeId: reflection.id, level: 'agent', attempt: 1, status: 'failed', error: expect.objectContaining({ name: 'StructuredOutputError' }) }),
    ]);
    const end = eventsOfType(run.recording.events, 'reflectionEnd')[0];
    expect(end?.critique).toBeUndefined();
    expect(end?.revision).toBeUndefined();
    model.assertComplete();
  });

  it('a reflector answer that does not match { critique, revisedUser, guidance } fails the same way', async () => {
    const model = new ScriptedModel([json({ n: 'five' }), json({ critique: 'no guidance given' })]);
    const agent = createAgent({ name: 'counter', client: model.client(), enableReflection: true });
    const error = await caught(() => agent.prompt(ask()));
    expect(error).toBeInstanceOf(ReflectionFailedError);
    expect((error as ReflectionFailedError).message).toContain('guidance');
    model.assertComplete();
  });

  it('a reflector that gets a 401 fails the pass with the API error as cause', async () => {
    const model = new ScriptedModel([json({ n: 'five' }), httpError(401)]);
    const agent = createAgent({ name: 'counter', client: model.client({ maxRetries: 0 }), enableReflection: true });
    const run = await runInStep(() => agent.prompt(ask()));
    const cause = (failed(run.outcome) as WorkflowError).cause;
    expect(cause).toBeInstanceOf(ReflectionFailedError);
    expect((cause as ReflectionFailedError).cause).toMatchObject({ status: 401 });
    expect(runningNodes(run.workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('a failure on the second pass reports attempt 2; the first pass stays completed', async () => {
    const model = new ScriptedModel([json({ n: 'one' }), revision('c1', 'g1'), json({ n: 'two' }), malformedJson()]);
    const agent = createAgent({ name: 'counter', client: model.client(), enableReflection: { maxAttempts: 3 } });
    const run = await runInStep(() => agent.prompt(ask()));
    const cause = (failed(run.outcome) as WorkflowError).cause;
    expect(cause).toBeInstanceOf(ReflectionFailedError);
    expect((cause as ReflectionFailedError).attempt).toBe(2);
    expect(nodesOfKind(run.workflow.node, 'reflection').map((n) => n.status)).toEqual(['completed', 'failed']);
    expect(runningNodes(run.workflow.node)).toEqual([]);
    model.assertComplete();
  });
});

describe('a workflow-level reflection pass that itself fails', () => {
  it('the step fails with a WorkflowError whose cause is the ReflectionFailedError; no retry; nothing running', async () => {
    const model = new ScriptedModel([malformedJson(), malformedJson('not json either')]);
    const agent = createAgent({ name: 'counter', client: model.client() });
    const reflector = createAgent({ name: 'coach', client: model.client() });
    const workflow = createWorkflow({ name: 'flow', clock: new FakeClock(), enableReflection: { agent: reflector, maxAttempts: 3 } }, (ctx) =>
      ctx.step('count', () => agent.prompt(ask())),
    );
    const recording = record(workflow);
    const error = await caught(() => workflow.run());

    expect(error).toBeInstanceOf(WorkflowError);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(ReflectionFailedError);
    expect((cause as ReflectionFailedError).level).toBe('workflow');
    expect((cause as ReflectionFailedError).original).toBeInstanceOf(StructuredOutputError);
    expect((cause as ReflectionFailedError).message).toContain('The failure it was reflecting on');
    expect(model.requests).toHaveLength(2);

    const step = onlyChild(workflow.node, 'step');
    const reflection = onlyChild(step, 'reflection');
    expect(step.status).toBe('failed');
    expect(reflection.status).toBe('failed');
    expect(onlyChild(reflection, 'agentPrompt').name).toBe('coach: reflection');
    expect(eventsOfType(recording.events, 'stepRetry')).toEqual([]);
    expect(eventsOfType(recording.events, 'stepEnd')).toEqual([expect.objectContaining({ status: 'failed', attempts: 1 })]);
    expect(eventsOfType(recording.events, 'reflectionEnd')).toEqual([expect.objectContaining({ level: 'workflow', status: 'failed' })]);
    expect(runningNodes(workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('an agent-level ReflectionFailedError inside a reflecting workflow is not reflected on again', async () => {
    const model = new ScriptedModel([json({ n: 'five' }), malformedJson()]);
    const agent = createAgent({ name: 'counter', client: model.client(), enableReflection: true });
    const reflector = createAgent({ name: 'coach', client: model.client() });
    const workflow = createWorkflow({ name: 'flow', clock: new FakeClock(), enableReflection: { agent: reflector } }, (ctx) =>
      ctx.step('count', () => agent.prompt(ask())),
    );
    const error = await caught(() => workflow.run());
    expect((error as WorkflowError).cause).toBeInstanceOf(ReflectionFailedError);
    expect(model.requests).toHaveLength(2);
    expect(nodesOfKind(workflow.node, 'reflection')).toHaveLength(1);
    expect(runningNodes(workflow.node)).toEqual([]);
    model.assertComplete();
  });
});
