import { describe, expect, it } from 'vitest';
import {
  createAgent,
  createPrompt,
  DEFAULT_REFLECTION_ATTEMPTS,
  StructuredOutputError,
  usageRollup,
  UsageError,
  WorkflowError,
  type Agent,
  type ReflectionSetting,
} from 'groundswell';
import { DEFAULT_USAGE, json, ScriptedModel } from 'groundswell/testing';
import { failed, onlyChild, runInStep, runningNodes } from '../support/agent-helpers.js';
import { caught } from '../support/decorators-helpers.js';
import { eventsOfType } from '../support/events.js';
import { childrenOfKind, Count, LESSONS_HEADING, lessonsBlock, nodesOfKind, revision, systemText } from './helpers.js';

const countPrompt = (extra: { enableReflection?: ReflectionSetting } = {}) =>
  createPrompt({ name: 'count', user: 'How many apples are in the basket?', responseFormat: Count, ...extra });

/** A schema mismatch, the reflector's revision, then a valid answer. */
function mismatchThenFixed(revisedUser: string | null = null): ScriptedModel {
  return new ScriptedModel([
    json({ n: 'five' }),
    revision('n must be a number; the answer spelled it out as a word.', 'Answer n as a JSON number, e.g. 5.', revisedUser),
    json({ n: 5 }),
  ]);
}

describe('prompt-level reflection (createPrompt({ enableReflection: true }))', () => {
  it('a schema mismatch triggers one reflection pass under the agentPrompt node, and the retry carries the revision', async () => {
    const model = mismatchThenFixed('Count the apples and answer with a number.');
    const agent = createAgent({ name: 'counter', system: 'You count things.', client: model.client() });
    const run = await runInStep(() => agent.prompt(countPrompt({ enableReflection: true })));

    expect(run.outcome).toEqual({ ok: true, value: { n: 5 } });
    expect(model.requests).toHaveLength(3);

    // The tree: step > agentPrompt > reflection > the reflector's own agentPrompt.
    const promptNode = onlyChild(run.step, 'agentPrompt');
    expect(promptNode.name).toBe('counter: count');
    expect(promptNode.status).toBe('completed');
    const reflection = onlyChild(promptNode, 'reflection');
    expect(reflection.status).toBe('completed');
    expect(reflection.name).toContain('prompt');
    const reflectorCall = onlyChild(reflection, 'agentPrompt');
    expect(reflectorCall.status).toBe('completed');
    expect(reflectorCall.name).toBe('counter (reflection): reflection');
    expect(childrenOfKind(run.step, 'reflection')).toEqual([]);

    // reflectionStart/End on the reflection node: level 'prompt', attempt 1, critique and revision.
    const starts = eventsOfType(run.recording.events, 'reflectionStart');
    const ends = eventsOfType(run.recording.events, 'reflectionEnd');
    expect(starts).toEqual([
      expect.objectContaining({ nodeId: reflection.id, level: 'prompt', attempt: 1, error: expect.objectContaining({ name: 'StructuredOutputError' }) }),
    ]);
    expect(ends).toEqual([
      expect.objectContaining({
        nodeId: reflection.id,
        level: 'prompt',
        attempt: 1,
        status: 'completed',
        critique: 'n must be a number; the answer spelled it out as a word.',
        revision: { user: 'Count the apples and answer with a number.', guidance: 'Answer n as a JSON number, e.g. 5.' },
      }),
    ]);
    expect(reflection.events.map((e) => e.type)).toEqual(expect.arrayContaining(['reflectionStart', 'reflectionEnd']));

    // The first attempt: original request, no lessons.
    const [first, reflecting, retry] = model.requests;
    expect(first?.firstUserText).toContain('How many apples are in the basket?');
    expect(lessonsBlock(first)).toBeUndefined();
    expect(systemText(first)).not.toContain(LESSONS_HEADING);
    // The reflector was shown the task and the failure.
    expect(reflecting?.firstUserText).toContain('How many apples are in the basket?');
    expect(reflecting?.firstUserText).toContain('<failure>');
    expect(reflecting?.firstUserText).toMatch(/n: /);
    // The retry: the rewritten user text and the guidance in its own system block, after the identity.
    expect(retry?.firstUserText).toContain('Count the apples and answer with a number.');
    expect(retry?.firstUserText).not.toContain('How many apples are in the basket?');
    expect(lessonsBlock(retry)).toBe(`${LESSONS_HEADING}\n- Answer n as a JSON number, e.g. 5.`);
    expect(systemText(retry)).toMatch(/^You count things\.\n\n# Lessons from a failed attempt/);
    model.assertComplete();
  });

  it('revisedUser: null keeps the original user text; only the guidance is added', async () => {
    const model = mismatchThenFixed(null);
    const agent = createAgent({ name: 'counter', client: model.client() });
    const run = await runInStep(() => agent.prompt(countPrompt({ enableReflection: true })));
    expect(run.outcome).toEqual({ ok: true, value: { n: 5 } });
    const retry = model.requests[2];
    expect(retry?.firstUserText).toBe(model.requests[0]?.firstUserText);
    expect(lessonsBlock(retry)).toContain('Answer n as a JSON number');
    expect(eventsOfType(run.recording.events, 'reflectionEnd')[0]?.revision).toEqual({ user: null, guidance: 'Answer n as a JSON number, e.g. 5.' });
    model.assertComplete();
  });

  it('the usage of every attempt and of the reflection rolls up to the prompt node, the step and the workflow', async () => {
    const model = mismatchThenFixed();
    const agent = createAgent({ name: 'counter', client: model.client() });
    const run = await runInStep(() => agent.prompt(countPrompt({ enableReflection: true })));
    expect(run.outcome.ok).toBe(true);
    const promptNode = onlyChild(run.step, 'agentPrompt');
    const reflectorCall = onlyChild(onlyChild(promptNode, 'reflection'), 'agentPrompt');

    // The call itself paid for two attempts; the reflector for one request.
    expect(promptNode.usage).toMatchObject({ inputTokens: 2 * DEFAULT_USAGE.input_tokens, outputTokens: 2 * DEFAULT_USAGE.output_tokens });
    expect(reflectorCall.usage).toMatchObject({ inputTokens: DEFAULT_USAGE.input_tokens, outputTokens: DEFAULT_USAGE.output_tokens });
    const totals = usageRollup(run.workflow.node);
    for (const node of [promptNode, run.step, run.workflow.node]) {
      expect(totals.get(node)).toMatchObject({ inputTokens: 3 * DEFAULT_USAGE.input_tokens, outputTokens: 3 * DEFAULT_USAGE.output_tokens });
    }
    // The prompt's end event reports what the call itself spent: both of its attempts.
    const ends = eventsOfType(run.recording.events, 'agentPromptEnd').filter((e) => e.nodeId === promptNode.id);
    expect(ends).toEqual([expect.objectContaining({ status: 'completed', turns: 2, usage: expect.objectContaining({ inputTokens: 40 }) })]);
    model.assertComplete();
  });

  it('a prompt that turns reflection off wins over an agent that turns it on', async () => {
    const model = new ScriptedModel([json({ n: 'five' })]);
    const agent = createAgent({ name: 'counter', client: model.client(), enableReflection: true });
    const run = await runInStep(() => agent.prompt(countPrompt({ enableReflection: false })));
    expect((failed(run.outcome) as WorkflowError).cause).toBeInstanceOf(StructuredOutputError);
    expect(model.requests).toHaveLength(1);
    expect(nodesOfKind(run.workflow.node, 'reflection')).toEqual([]);
    model.assertComplete();
  });
});

describe('agent-level reflection (createAgent({ enableReflection }))', () => {
  it('reflects with level "agent", applies the revision and returns the retried value', async () => {
    const model = mismatchThenFixed('Answer with the number of apples.');
    const agent = createAgent({ name: 'counter', system: 'You count things.', client: model.client(), enableReflection: true });
    const run = await runInStep(() => agent.prompt(countPrompt()));

    expect(run.outcome).toEqual({ ok: true, value: { n: 5 } });
    const promptNode = onlyChild(run.step, 'agentPrompt');
    const reflection = onlyChild(promptNode, 'reflection');
    expect(reflection.name).toContain('agent');
    expect(onlyChild(reflection, 'agentPrompt').status).toBe('completed');
    expect(eventsOfType(run.recording.events, 'reflectionStart')).toEqual([expect.objectContaining({ level: 'agent', attempt: 1 })]);
    expect(eventsOfType(run.recording.events, 'reflectionEnd')).toEqual([
      expect.objectContaining({ level: 'agent', attempt: 1, status: 'completed', critique: expect.stringContaining('number') }),
    ]);
    const retry = model.requests[2];
    expect(retry?.firstUserText).toContain('Answer with the number of apples.');
    expect(lessonsBlock(retry)).toBe(`${LESSONS_HEADING}\n- Answer n as a JSON number, e.g. 5.`);
    expect(runningNodes(run.workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('the reflector is a tool-less agent on the same client and model, with no reflection of its own', async () => {
    const model = mismatchThenFixed();
    const agent = createAgent({ name: 'counter', model: 'claude-test-9', client: model.client(), enableReflection: true });
    await runInStep(() => agent.prompt(countPrompt()));
    const reflecting = model.requests[1];
    expect(reflecting?.model).toBe('claude-test-9');
    expect(reflecting?.body.tools).toBeUndefined();
    // The reflector is asked for the { critique, revisedUser, guidance } shape.
    expect(reflecting?.body.output_config?.format).toMatchObject({
      type: 'json_schema',
      schema: { properties: { critique: {}, revisedUser: {}, guidance: {} } },
    });
    model.assertComplete();
  });

  it('outside any workflow it still reflects and retries (there is just no tree)', async () => {
    const model = mismatchThenFixed();
    const agent = createAgent({ name: 'counter', client: model.client(), enableReflection: true });
    await expect(agent.prompt(countPrompt())).resolves.toEqual({ n: 5 });
    expect(lessonsBlock(model.requests[2])).toContain('Answer n as a JSON number');
    model.assertComplete();
  });
});

describe('agent.reflect(prompt)', () => {
  it('reflects even when the agent has reflection off, and applies the revision', async () => {
    const model = mismatchThenFixed('Give the apple count as a number.');
    const agent = createAgent({ name: 'counter', client: model.client() });
    const run = await runInStep(() => agent.reflect(countPrompt()));
    expect(run.outcome).toEqual({ ok: true, value: { n: 5 } });
    const promptNode = onlyChild(run.step, 'agentPrompt');
    expect(onlyChild(onlyChild(promptNode, 'reflection'), 'agentPrompt').status).toBe('completed');
    expect(eventsOfType(run.recording.events, 'reflectionEnd')).toEqual([
      expect.objectContaining({ level: 'agent', status: 'completed', revision: { user: 'Give the apple count as a number.', guidance: 'Answer n as a JSON number, e.g. 5.' } }),
    ]);
    expect(model.requests[2]?.firstUserText).toContain('Give the apple count as a number.');
    expect(lessonsBlock(model.requests[2])).toContain('Answer n as a JSON number');
    model.assertComplete();
  });

  it('uses the agent’s own maxAttempts when it has one', async () => {
    const model = new ScriptedModel([
      json({ n: 'one' }),
      revision('word, not number', 'Use digits.'),
      json({ n: 'two' }),
      revision('still a word', 'Digits only, like 2.'),
      json({ n: 2 }),
    ]);
    const agent = createAgent({ name: 'counter', client: model.client(), enableReflection: { maxAttempts: 3 } });
    await expect(agent.reflect(countPrompt())).resolves.toEqual({ n: 2 });
    expect(model.requests).toHaveLength(5);
    model.assertComplete();
  });

  it('reflects for an agent configured with enableReflection: false (only the prompt can turn it off)', async () => {
    const model = mismatchThenFixed();
    const agent = createAgent({ name: 'counter', client: model.client(), enableReflection: false });
    await expect(agent.reflect(countPrompt())).resolves.toEqual({ n: 5 });
    model.assertComplete();
  });

  it('a prompt that turns reflection off is not reflected on, even through agent.reflect', async () => {
    const model = new ScriptedModel([json({ n: 'five' })]);
    const agent = createAgent({ name: 'counter', client: model.client() });
    expect(await caught(() => agent.reflect(countPrompt({ enableReflection: false })))).toBeInstanceOf(StructuredOutputError);
    expect(model.requests).toHaveLength(1);
    model.assertComplete();
  });

  it('a success on the first attempt costs one request and leaves no reflection node', async () => {
    const model = new ScriptedModel([json({ n: 3 })]);
    const agent = createAgent({ name: 'counter', client: model.client() });
    const run = await runInStep(() => agent.reflect(countPrompt()));
    expect(run.outcome).toEqual({ ok: true, value: { n: 3 } });
    expect(nodesOfKind(run.workflow.node, 'reflection')).toEqual([]);
    expect(eventsOfType(run.recording.events, 'reflectionStart')).toEqual([]);
    expect(lessonsBlock(model.requests[0])).toBeUndefined();
    model.assertComplete();
  });
});

describe('bounded by maxAttempts', () => {
  it(`the default is ${DEFAULT_REFLECTION_ATTEMPTS} attempts: one reflection, then the second failure is thrown`, async () => {
    const model = new ScriptedModel([json({ n: 'one' }), revision('a word', 'Use digits.'), json({ n: 'still a word' })]);
    const agent = createAgent({ name: 'counter', client: model.client(), enableReflection: true });
    const run = await runInStep(() => agent.prompt(countPrompt()));
    const error = failed(run.outcome);
    expect(error).toBeInstanceOf(WorkflowError);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(StructuredOutputError);
    expect((cause as StructuredOutputError).raw).toContain('still a word');
    expect(model.requests).toHaveLength(3);
    expect(nodesOfKind(run.workflow.node, 'reflection')).toHaveLength(1);
    expect(onlyChild(run.step, 'agentPrompt').status).toBe('failed');
    expect(runningNodes(run.workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('maxAttempts: 3 → at most two reflections, then the last error is thrown; guidance accumulates', async () => {
    const model = new ScriptedModel([
      json({ n: 'one' }),
      revision('first critique', 'First lesson.', 'Count the apples, digits only.'),
      json({ n: 'two' }),
      revision('second critique', 'Second lesson.'),
      json({ n: 'three' }),
    ]);
    const agent = createAgent({ name: 'counter', client: model.client(), enableReflection: { maxAttempts: 3 } });
    const run = await runInStep(() => agent.prompt(countPrompt()));

    const cause = (failed(run.outcome) as WorkflowError).cause;
    expect(cause).toBeInstanceOf(StructuredOutputError);
    expect((cause as StructuredOutputError).raw).toContain('three');
    expect(model.requests).toHaveLength(5);

    const promptNode = onlyChild(run.step, 'agentPrompt');
    const reflections = childrenOfKind(promptNode, 'reflection');
    expect(reflections.map((r) => r.status)).toEqual(['completed', 'completed']);
    expect(eventsOfType(run.recording.events, 'reflectionEnd').map((e) => [e.level, e.attempt, e.critique])).toEqual([
      ['agent', 1, 'first critique'],
      ['agent', 2, 'second critique'],
    ]);
    // Each revision builds on the last: the third attempt keeps the rewritten request and both lessons.
    expect(lessonsBlock(model.requests[2])).toBe(`${LESSONS_HEADING}\n- First lesson.`);
    expect(lessonsBlock(model.requests[4])).toBe(`${LESSONS_HEADING}\n- First lesson.\n- Second lesson.`);
    expect(model.requests[4]?.firstUserText).toContain('Count the apples, digits only.');
    expect(promptNode.status).toBe('failed');
    expect(runningNodes(run.workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('maxAttempts: 1 means no reflection at all', async () => {
    const model = new ScriptedModel([json({ n: 'one' })]);
    const agent = createAgent({ name: 'counter', client: model.client(), enableReflection: { maxAttempts: 1 } });
    const run = await runInStep(() => agent.prompt(countPrompt()));
    expect((failed(run.outcome) as WorkflowError).cause).toBeInstanceOf(StructuredOutputError);
    expect(model.requests).toHaveLength(1);
    expect(nodesOfKind(run.workflow.node, 'reflection')).toEqual([]);
    model.assertComplete();
  });

  it.each<[string, ReflectionSetting | undefined]>([
    ['not set', undefined],
    ['false', false],
  ])('enableReflection %s → no reflection: one request, the error passes through', async (_label, setting) => {
    const model = new ScriptedModel([json({ n: 'five' })]);
    const agent = createAgent({ name: 'counter', client: model.client(), ...(setting === undefined ? {} : { enableReflection: setting }) });
    const run = await runInStep(() => agent.prompt(countPrompt()));
    expect((failed(run.outcome) as WorkflowError).cause).toBeInstanceOf(StructuredOutputError);
    expect(model.requests).toHaveLength(1);
    expect(nodesOfKind(run.workflow.node, 'reflection')).toEqual([]);
    expect(eventsOfType(run.recording.events, 'reflectionStart')).toEqual([]);
    model.assertComplete();
  });
});

describe('invalid maxAttempts', () => {
  const INVALID: ReadonlyArray<[string, ReflectionSetting]> = [
    ['0', { maxAttempts: 0 }],
    ['-1', { maxAttempts: -1 }],
    ['1.5', { maxAttempts: 1.5 }],
    ['NaN', { maxAttempts: Number.NaN }],
  ];

  it.each(INVALID)('maxAttempts %s on the prompt or in agent.reflect overrides: UsageError, no request', async (_label, setting) => {
    const model = new ScriptedModel([]);
    const agent: Agent = createAgent({ name: 'counter', client: model.client() });
    expect(await caught(() => agent.prompt(countPrompt({ enableReflection: setting })))).toBeInstanceOf(UsageError);
    expect(await caught(() => agent.reflect(countPrompt(), { enableReflection: setting }))).toBeInstanceOf(UsageError);
    expect(model.requests).toHaveLength(0);
    model.assertComplete();
  });

  it('createAgent refuses an invalid enableReflection at construction, like other invalid settings', () => {
    expect(() => createAgent({ name: 'counter', enableReflection: { maxAttempts: 0 } })).toThrow(UsageError);
  });

  it('createPrompt refuses an invalid enableReflection at construction, like other invalid settings', () => {
    expect(() => countPrompt({ enableReflection: { maxAttempts: 0 } })).toThrow(UsageError);
  });
});
