import { describe, expect, it } from 'vitest';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  Step,
  StructuredOutputError,
  usageRollup,
  UsageError,
  Workflow,
  WorkflowError,
  WorkflowTreeDebugger,
  type Agent,
  type WorkflowConfig,
  type WorkflowContext,
} from 'groundswell';
import { DEFAULT_USAGE, json, malformedJson, ScriptedModel } from 'groundswell/testing';
import { onlyChild, runningNodes } from '../support/agent-helpers.js';
import { caught } from '../support/decorators-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';
import { childrenOfKind, Count, LESSONS_HEADING, lessonsBlock, nodesOfKind, revision, shape } from './helpers.js';

const ask = () => createPrompt({ name: 'count', user: 'How many?', responseFormat: Count });

/** A functional workflow with workflow-level reflection (reflector `coach`) and a recorder. */
function reflecting<R>(
  reflection: WorkflowConfig['enableReflection'],
  executor: (ctx: WorkflowContext) => Promise<R>,
) {
  const workflow = createWorkflow<R>({ name: 'flow', clock: new FakeClock(), enableReflection: reflection }, executor);
  return { workflow, recording: record(workflow) };
}

describe('workflow-level reflection on a failed step', () => {
  it('reflects under the step, emits stepRetry, and the retry’s agent call carries the guidance', async () => {
    const model = new ScriptedModel([
      malformedJson(),
      revision('The answer was cut off before the JSON closed.', 'Keep the answer short: just {"n": <number>}.'),
      json({ n: 5 }),
    ]);
    const agent = createAgent({ name: 'counter', system: 'You count.', client: model.client() });
    const coach = createAgent({ name: 'coach', client: model.client() });
    const seen: Array<readonly string[]> = [];
    const { workflow, recording } = reflecting({ agent: coach }, (ctx) =>
      ctx.step('count', async () => {
        seen.push(ctx.reflection.guidance);
        return agent.prompt(ask());
      }),
    );

    await expect(workflow.run()).resolves.toEqual({ n: 5 });
    expect(model.requests).toHaveLength(3);

    // The tree: the failed call, the reflection (with the coach's call), then the retry's call.
    const step = onlyChild(workflow.node, 'step');
    expect(shape(step)).toEqual(['agentPrompt:counter: count', 'reflection:reflect on attempt 1 (workflow)', 'agentPrompt:counter: count']);
    const [failedCall, reflection, retriedCall] = step.children;
    expect(failedCall?.status).toBe('failed');
    expect(reflection?.status).toBe('completed');
    expect(retriedCall?.status).toBe('completed');
    expect(onlyChild(reflection ?? workflow.node, 'agentPrompt').name).toBe('coach: reflection');
    expect(step.status).toBe('completed');

    // Events: reflectionStart/End at level 'workflow' on the reflection node, one stepRetry, stepEnd attempts 2.
    expect(eventsOfType(recording.events, 'reflectionStart')).toEqual([
      expect.objectContaining({ nodeId: reflection?.id, level: 'workflow', attempt: 1, error: expect.objectContaining({ name: 'StructuredOutputError' }) }),
    ]);
    expect(eventsOfType(recording.events, 'reflectionEnd')).toEqual([
      expect.objectContaining({
        level: 'workflow',
        attempt: 1,
        status: 'completed',
        critique: 'The answer was cut off before the JSON closed.',
        revision: { user: null, guidance: 'Keep the answer short: just {"n": <number>}.' },
      }),
    ]);
    expect(eventsOfType(recording.events, 'stepRetry')).toEqual([
      expect.objectContaining({ nodeId: step.id, name: 'count', attempt: 1, delayMs: 0, error: expect.objectContaining({ name: 'StructuredOutputError' }) }),
    ]);
    expect(eventsOfType(recording.events, 'stepEnd')).toEqual([expect.objectContaining({ name: 'count', status: 'completed', attempts: 2 })]);

    // The coach was told which step failed and why.
    expect(model.requests[1]?.firstUserText).toContain('Step "count" of workflow "flow" failed');
    // The guidance reaches the retry: in its system prompt, and in ctx.reflection inside the body.
    expect(lessonsBlock(model.requests[0])).toBeUndefined();
    expect(lessonsBlock(model.requests[2])).toBe(`${LESSONS_HEADING}\n- Keep the answer short: just {"n": <number>}.`);
    expect(seen).toEqual([[], ['Keep the answer short: just {"n": <number>}.']]);

    // Usage of both attempts and the reflection rolls up to the step.
    expect(usageRollup(workflow.node).get(step)).toMatchObject({ inputTokens: 3 * DEFAULT_USAGE.input_tokens });
    expect(new WorkflowTreeDebugger(workflow).toTreeString()).toContain('(2 attempts)');
    expect(runningNodes(workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('a step that fails without any agent call is reflected on too; the body reads the guidance', async () => {
    const model = new ScriptedModel([revision('The input list was empty.', 'Fall back to the default list.')]);
    const coach = createAgent({ name: 'coach', client: model.client() });
    const { workflow, recording } = reflecting({ agent: coach }, (ctx) =>
      ctx.step('pick', () => {
        const [lesson] = ctx.reflection.guidance;
        if (lesson === undefined) throw new Error('nothing to pick from');
        return lesson;
      }),
    );
    await expect(workflow.run()).resolves.toBe('Fall back to the default list.');
    expect(model.requests[0]?.firstUserText).toContain('nothing to pick from');
    expect(eventsOfType(recording.events, 'stepEnd')).toEqual([expect.objectContaining({ status: 'completed', attempts: 2 })]);
    model.assertComplete();
  });

  it('ctx.reflection.guidance is empty outside a retried step, and for other steps of the same run', async () => {
    const model = new ScriptedModel([revision('c', 'Only for the failing step.')]);
    const coach = createAgent({ name: 'coach', client: model.client() });
    const outside: Array<readonly string[]> = [];
    let failedOnce = false;
    const { workflow } = reflecting({ agent: coach }, async (ctx) => {
      outside.push(ctx.reflection.guidance);
      await ctx.step('flaky', () => {
        if (!failedOnce) {
          failedOnce = true;
          throw new Error('first time fails');
        }
      });
      outside.push(ctx.reflection.guidance);
      await ctx.step('next', () => {
        outside.push(ctx.reflection.guidance);
      });
    });
    await workflow.run();
    expect(outside).toEqual([[], [], []]);
    model.assertComplete();
  });

  it('a failing nested step is reflected on and retried itself; its retry sees the guidance', async () => {
    const model = new ScriptedModel([malformedJson(), revision('c', 'Be brief.'), json({ n: 1 })]);
    const agent = createAgent({ name: 'counter', client: model.client() });
    const coach = createAgent({ name: 'coach', client: model.client() });
    const seen: Array<readonly string[]> = [];
    const { workflow } = reflecting({ agent: coach }, (ctx) =>
      ctx.step('outer', () =>
        ctx.step('inner', () => {
          seen.push(ctx.reflection.guidance);
          return agent.prompt(ask());
        }),
      ),
    );
    // The innermost failing step is the one reflected on and retried; the outer step runs once.
    await expect(workflow.run()).resolves.toEqual({ n: 1 });
    const outer = onlyChild(workflow.node, 'step');
    const inner = onlyChild(outer, 'step');
    expect(childrenOfKind(outer, 'reflection')).toEqual([]);
    expect(onlyChild(inner, 'reflection').status).toBe('completed');
    expect(lessonsBlock(model.requests[2])).toContain('Be brief.');
    expect(seen).toEqual([[], ['Be brief.']]);
    model.assertComplete();
  });

  it('when the outer step is the one retried, the steps and agent calls nested in its retry see the guidance', async () => {
    const model = new ScriptedModel([json({ n: 1 }), revision('c', 'Count twice.'), json({ n: 2 })]);
    const agent = createAgent({ name: 'counter', client: model.client() });
    const coach = createAgent({ name: 'coach', client: model.client() });
    const seen: Array<readonly string[]> = [];
    const { workflow } = reflecting({ agent: coach }, (ctx) =>
      ctx.step('outer', async () => {
        const answer = await ctx.step('inner', () => {
          seen.push(ctx.reflection.guidance);
          return agent.prompt(ask());
        });
        if (answer.n < 2) throw new Error('too few');
        return answer;
      }),
    );
    await expect(workflow.run()).resolves.toEqual({ n: 2 });
    const outer = onlyChild(workflow.node, 'step');
    expect(shape(outer)).toEqual(['step:inner', 'reflection:reflect on attempt 1 (workflow)', 'step:inner']);
    expect(seen).toEqual([[], ['Count twice.']]);
    expect(lessonsBlock(model.requests[2])).toBe(`${LESSONS_HEADING}\n- Count twice.`);
    model.assertComplete();
  });

  it('bounded by maxAttempts: 3 → two reflections under the step, then the step fails with the last error', async () => {
    const model = new ScriptedModel([
      json({ n: 'one' }),
      revision('c1', 'Lesson one.'),
      json({ n: 'two' }),
      revision('c2', 'Lesson two.'),
      json({ n: 'three' }),
    ]);
    const agent = createAgent({ name: 'counter', client: model.client() });
    const coach = createAgent({ name: 'coach', client: model.client() });
    const { workflow, recording } = reflecting({ agent: coach, maxAttempts: 3 }, (ctx) => ctx.step('count', () => agent.prompt(ask())));
    const error = await caught(() => workflow.run());

    expect(error).toBeInstanceOf(WorkflowError);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(StructuredOutputError);
    expect((cause as StructuredOutputError).raw).toContain('three');
    expect(model.requests).toHaveLength(5);
    const step = onlyChild(workflow.node, 'step');
    expect(childrenOfKind(step, 'reflection').map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(childrenOfKind(step, 'agentPrompt').map((p) => p.status)).toEqual(['failed', 'failed', 'failed']);
    expect(eventsOfType(recording.events, 'stepRetry').map((e) => e.attempt)).toEqual([1, 2]);
    expect(eventsOfType(recording.events, 'stepEnd')).toEqual([expect.objectContaining({ status: 'failed', attempts: 3 })]);
    expect(lessonsBlock(model.requests[4])).toBe(`${LESSONS_HEADING}\n- Lesson one.\n- Lesson two.`);
    expect(runningNodes(workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it.each<[string, WorkflowConfig['enableReflection']]>([
    ['not set', undefined],
    ['false', false],
    ['maxAttempts: 1', { maxAttempts: 1 }],
  ])('enableReflection %s → a failed step is not reflected on', async (_label, setting) => {
    const model = new ScriptedModel([json({ n: 'five' })]);
    const agent = createAgent({ name: 'counter', client: model.client() });
    const { workflow, recording } = reflecting(setting, (ctx) => ctx.step('count', () => agent.prompt(ask())));
    expect(((await caught(() => workflow.run())) as WorkflowError).cause).toBeInstanceOf(StructuredOutputError);
    expect(model.requests).toHaveLength(1);
    expect(nodesOfKind(workflow.node, 'reflection')).toEqual([]);
    expect(eventsOfType(recording.events, 'stepRetry')).toEqual([]);
    model.assertComplete();
  });

  it('an explicit step retry policy runs first; reflection follows once it is spent', async () => {
    const model = new ScriptedModel([revision('c', 'Try the other way.')]);
    const coach = createAgent({ name: 'coach', client: model.client() });
    let calls = 0;
    const { workflow, recording } = reflecting({ agent: coach }, (ctx) =>
      ctx.step(
        'work',
        () => {
          calls += 1;
          if (ctx.reflection.guidance.length === 0) throw new Error(`attempt ${calls} failed`);
          return calls;
        },
        { retry: { maxAttempts: 2 } },
      ),
    );
    await expect(workflow.run()).resolves.toBe(3);
    expect(eventsOfType(recording.events, 'stepRetry').map((e) => e.attempt)).toEqual([1, 2]);
    expect(eventsOfType(recording.events, 'reflectionStart')).toEqual([expect.objectContaining({ attempt: 2 })]);
    model.assertComplete();
  });

  it('works for a class workflow: reflection under the @Step, the retry’s agent call carries the guidance', async () => {
    const model = new ScriptedModel([json({ n: 'five' }), revision('c', 'Use digits.'), json({ n: 5 })]);
    const agent = createAgent({ name: 'counter', client: model.client() });
    const coach = createAgent({ name: 'coach', client: model.client() });
    class CountFlow extends Workflow<number> {
      constructor() {
        super({ name: 'counting', clock: new FakeClock(), enableReflection: { agent: coach } });
      }
      @Step() async count(): Promise<number> {
        return (await agent.prompt(ask())).n;
      }
      override async run(): Promise<number> {
        return this.count();
      }
    }
    const workflow = new CountFlow();
    const recording = record(workflow);
    await expect(workflow.run()).resolves.toBe(5);
    const step = onlyChild(workflow.node, 'step');
    expect(onlyChild(step, 'reflection').name).toBe('reflect on attempt 1 (workflow)');
    expect(lessonsBlock(model.requests[2])).toContain('Use digits.');
    expect(eventsOfType(recording.events, 'stepEnd')).toEqual([expect.objectContaining({ name: 'count', status: 'completed', attempts: 2 })]);
    model.assertComplete();
  });

  it('the guidance reaches agent calls of a child workflow run inside the retried step', async () => {
    const model = new ScriptedModel([json({ n: 'five' }), revision('c', 'Use digits.'), json({ n: 5 })]);
    const agent = createAgent({ name: 'counter', client: model.client() });
    const coach = createAgent({ name: 'coach', client: model.client() });
    const { workflow } = reflecting({ agent: coach }, (ctx) =>
      ctx.step('delegate', () => createWorkflow({ name: 'child' }, (child) => child.step('count', () => agent.prompt(ask()))).run()),
    );
    await expect(workflow.run()).resolves.toEqual({ n: 5 });
    expect(lessonsBlock(model.requests[2])).toContain('Use digits.');
  });

  it('createWorkflow refuses an invalid enableReflection.maxAttempts', () => {
    expect(() => createWorkflow({ name: 'flow', enableReflection: { maxAttempts: 0 } }, () => 1)).toThrow(UsageError);
  });
});

describe('escalation order: agent-level first, then workflow-level', () => {
  it('agent reflections under the prompt node are spent first, then a workflow reflection under the step', async () => {
    const model = new ScriptedModel([
      json({ n: 'a' }), // call 1, attempt 1
      revision('agent critique', 'Agent lesson.'), // agent-level reflection
      json({ n: 'b' }), // call 1, attempt 2: agent-level attempts spent, the step fails
      revision('workflow critique', 'Workflow lesson.'), // workflow-level reflection
      json({ n: 7 }), // the step's retry: call 2, attempt 1
    ]);
    const agent: Agent = createAgent({ name: 'counter', client: model.client(), enableReflection: true });
    const coach = createAgent({ name: 'coach', client: model.client() });
    const { workflow, recording } = reflecting({ agent: coach }, (ctx) => ctx.step('count', () => agent.prompt(ask())));

    await expect(workflow.run()).resolves.toEqual({ n: 7 });
    expect(model.requests).toHaveLength(5);

    const step = onlyChild(workflow.node, 'step');
    expect(shape(step)).toEqual(['agentPrompt:counter: count', 'reflection:reflect on attempt 1 (workflow)', 'agentPrompt:counter: count']);
    const [firstCall, stepReflection, secondCall] = step.children;
    // The agent-level reflection sits under the first call's node; the workflow-level one under the step.
    const agentReflection = onlyChild(firstCall ?? workflow.node, 'reflection');
    expect(agentReflection.name).toBe('reflect on attempt 1 (agent)');
    expect(onlyChild(agentReflection, 'agentPrompt').name).toBe('counter (reflection): reflection');
    expect(onlyChild(stepReflection ?? workflow.node, 'agentPrompt').name).toBe('coach: reflection');
    expect(firstCall?.status).toBe('failed');
    expect(secondCall?.status).toBe('completed');
    expect(childrenOfKind(secondCall ?? workflow.node, 'reflection')).toEqual([]);

    // In time: agent level first, workflow level after.
    expect(eventsOfType(recording.events, 'reflectionStart').map((e) => [e.level, e.attempt])).toEqual([
      ['agent', 1],
      ['workflow', 1],
    ]);
    expect(recording.sequence.filter((s) => /reflection|stepRetry/.test(s))).toEqual([
      'event:reflectionStart',
      'event:reflectionEnd',
      'event:reflectionStart',
      'event:reflectionEnd',
      'event:stepRetry:count',
    ]);
    // What each retry carried: the agent-level lesson, then the workflow-level lesson.
    expect(lessonsBlock(model.requests[2])).toBe(`${LESSONS_HEADING}\n- Agent lesson.`);
    expect(lessonsBlock(model.requests[4])).toBe(`${LESSONS_HEADING}\n- Workflow lesson.`);

    const tree = new WorkflowTreeDebugger(workflow).toTreeString();
    expect(tree.indexOf('reflect on attempt 1 (agent)')).toBeLessThan(tree.indexOf('reflect on attempt 1 (workflow)'));
    expect(runningNodes(workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('in the retried step, agent-level reflection builds on the workflow guidance', async () => {
    const model = new ScriptedModel([
      json({ n: 'a' }),
      revision('ac1', 'Agent lesson 1.'),
      json({ n: 'b' }),
      revision('wc', 'Workflow lesson.'),
      json({ n: 'c' }), // the retry's call fails once more...
      revision('ac2', 'Agent lesson 2.'), // ...and reflects at agent level again
      json({ n: 9 }),
    ]);
    const agent = createAgent({ name: 'counter', client: model.client(), enableReflection: true });
    const coach = createAgent({ name: 'coach', client: model.client() });
    const { workflow, recording } = reflecting({ agent: coach }, (ctx) => ctx.step('count', () => agent.prompt(ask())));
    await expect(workflow.run()).resolves.toEqual({ n: 9 });
    expect(eventsOfType(recording.events, 'reflectionStart').map((e) => e.level)).toEqual(['agent', 'workflow', 'agent']);
    expect(lessonsBlock(model.requests[4])).toBe(`${LESSONS_HEADING}\n- Workflow lesson.`);
    expect(lessonsBlock(model.requests[6])).toBe(`${LESSONS_HEADING}\n- Workflow lesson.\n- Agent lesson 2.`);
    model.assertComplete();
  });
});
