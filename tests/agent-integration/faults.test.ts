import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  defineTool,
  MaxTurnsExceededError,
  StructuredOutputError,
  usageRollup,
  WorkflowError,
  WorkflowTreeDebugger,
  type Tool,
  type WorkflowNode,
} from 'groundswell';
import { json, malformedJson, ScriptedModel, toolUse, type RecordedRequest, type ScriptStep } from 'groundswell/testing';
import { allNodes } from '../support/core-helpers.js';
import { eventsOfType } from '../support/events.js';
import {
  errorOf,
  nodesOfKind,
  onlyEventOn,
  onlyNodeOfKind,
  resultText,
  runFlow,
  stillRunning,
  toolResultsOf,
  valueOf,
} from '../support/integration-helpers.js';

const Answer = z.object({ answer: z.string() });
const Sum = z.object({ sum: z.number() });

const AddInput = z.object({ a: z.number(), b: z.number() });

function adder(): Tool<typeof AddInput> {
  return defineTool({
    name: 'add',
    description: 'Adds two numbers.',
    input: AddInput,
    execute: ({ a, b }) => a + b,
  });
}

/** The question number in a user text like "question 7". */
function questionOf(request: RecordedRequest): number {
  const match = /question (\d+)/.exec(request.firstUserText ?? '');
  if (match === null) throw new Error(`no question number in ${JSON.stringify(request.firstUserText)}`);
  return Number(match[1]);
}

/** The WorkflowError a run failed with, and its cause. */
function workflowErrorOf(error: unknown): { error: WorkflowError; cause: unknown } {
  expect(error).toBeInstanceOf(WorkflowError);
  return { error: error as WorkflowError, cause: (error as WorkflowError).cause };
}

/** The step node of that name directly under the workflow. */
function stepNamed(root: WorkflowNode, name: string): WorkflowNode {
  const step = root.children.find((child) => child.kind === 'step' && child.name === name);
  if (step === undefined) throw new Error(`expected a step "${name}"`);
  return step;
}

describe('concurrency', () => {
  it('10 concurrent prompts on one agent in one workflow each get their own answer, tools and node', async () => {
    const count = 10;
    // Keyed on the user text; later questions answer sooner, so completions come back shuffled.
    const model = new ScriptedModel((request): ScriptStep => {
      const n = questionOf(request);
      const delayMs = (count - n) * 2;
      const results = toolResultsOf(request);
      if (results.length === 0) return toolUse('add', { a: n, b: 100 }, { delayMs });
      return json({ sum: Number(resultText(results[0])) }, { delayMs });
    });
    const agent = createAgent({ name: 'solver', client: model.client(), tools: [adder()] });
    const questions = Array.from({ length: count }, (_, n) => n);
    const run = await runFlow((ctx) =>
      Promise.all(
        questions.map((n) =>
          ctx.step(`q${n}`, () => agent.execute(createPrompt({ user: `question ${n}`, name: `question ${n}`, responseFormat: Sum }))),
        ),
      ),
    );
    const results = valueOf(run.outcome);
    expect(results.map((result) => result.value)).toEqual(questions.map((n) => ({ sum: n + 100 })));
    expect(results.map((result) => result.toolCalls.map((call) => call.input))).toEqual(questions.map((n) => [{ a: n, b: 100 }]));
    expect(model.requests).toHaveLength(count * 2);

    const root = run.workflow.node;
    expect(root.status).toBe('completed');
    for (const n of questions) {
      const step = stepNamed(root, `q${n}`);
      expect(step.status).toBe('completed');
      const prompt = onlyNodeOfKind(step, 'agentPrompt');
      expect(prompt.name).toBe(`solver: question ${n}`);
      expect(prompt.status).toBe('completed');
      expect(onlyEventOn(prompt, 'agentPromptEnd')).toMatchObject({ status: 'completed', turns: 2 });
      const tool = onlyNodeOfKind(prompt, 'toolCall');
      expect(onlyEventOn(tool, 'toolInvocation')).toMatchObject({ input: { a: n, b: 100 }, output: String(n + 100) });
    }
    const promptIds = eventsOfType(run.recording.events, 'agentPromptStart').map((event) => event.promptId);
    expect(new Set(promptIds).size).toBe(count);
    expect(new Set(nodesOfKind(root, 'agentPrompt').map((node) => node.id)).size).toBe(count);
    expect(stillRunning(root)).toEqual([]);
  });

  it('20 concurrent prompts in one workflow print no MaxListenersExceededWarning', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error): void => {
      if (warning.name === 'MaxListenersExceededWarning') warnings.push(warning);
    };
    process.on('warning', onWarning);
    try {
      const model = new ScriptedModel(() => json({ answer: 'ok' }, { delayMs: 5 }));
      const agent = createAgent({ name: 'crowd', client: model.client() });
      const run = await runFlow((ctx) =>
        Promise.all(
          Array.from({ length: 20 }, (_, n) =>
            ctx.step(`q${n}`, () => agent.prompt(createPrompt({ user: `question ${n}`, responseFormat: Answer }))),
          ),
        ),
      );
      expect(valueOf(run.outcome)).toHaveLength(20);
      // process.emitWarning delivers on a later tick.
      await new Promise<void>((resolve) => setImmediate(resolve));
      expect(warnings.map((warning) => warning.message)).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('failures inside steps', () => {
  it('a malformed JSON answer fails the step with a WorkflowError caused by StructuredOutputError; the prompt node is failed', async () => {
    const model = new ScriptedModel([malformedJson('{"answer": "cut off')]);
    const agent = createAgent({ name: 'parser', client: model.client() });
    const run = await runFlow((ctx) => ctx.step('parse', () => agent.prompt(createPrompt({ user: 'Answer in JSON', responseFormat: Answer }))));

    const { error, cause } = workflowErrorOf(errorOf(run.outcome));
    expect(cause).toBeInstanceOf(StructuredOutputError);
    expect(cause).toMatchObject({ reason: 'invalid_json', raw: '{"answer": "cut off', agentName: 'parser' });
    expect(error.message).toContain('Step "parse"');

    const root = run.workflow.node;
    const step = stepNamed(root, 'parse');
    const prompt = onlyNodeOfKind(step, 'agentPrompt');
    expect([root.status, step.status, prompt.status]).toEqual(['failed', 'failed', 'failed']);
    expect(onlyEventOn(prompt, 'agentPromptEnd')).toMatchObject({
      status: 'failed',
      error: expect.objectContaining({ name: 'StructuredOutputError' }),
    });
    expect(onlyEventOn(step, 'error')).toBeDefined();
    expect(stillRunning(root)).toEqual([]);
    model.assertComplete();
  });

  it('an answer that fails the schema names every failing path', async () => {
    const model = new ScriptedModel([json({ answer: 42, extra: true })]);
    const agent = createAgent({ name: 'strict', client: model.client() });
    const schema = z.object({ answer: z.string(), score: z.number() });
    const run = await runFlow((ctx) => ctx.step('judge', () => agent.prompt(createPrompt({ user: 'Judge', responseFormat: schema }))));
    const { cause } = workflowErrorOf(errorOf(run.outcome));
    expect(cause).toBeInstanceOf(StructuredOutputError);
    const failure = cause as StructuredOutputError;
    expect(failure.reason).toBe('schema_mismatch');
    expect(failure.issues.map((issue) => issue.path).sort()).toEqual(['answer', 'score']);
    expect(onlyNodeOfKind(run.workflow.node, 'agentPrompt').status).toBe('failed');
    expect(stillRunning(run.workflow.node)).toEqual([]);
  });

  it('a maxTurns overrun fails the step with a WorkflowError caused by MaxTurnsExceededError; the tool nodes stay completed', async () => {
    const model = new ScriptedModel([toolUse('add', { a: 1, b: 2 }), toolUse('add', { a: 3, b: 4 })]);
    const agent = createAgent({ name: 'looper', client: model.client(), tools: [adder()], maxTurns: 2 });
    const run = await runFlow((ctx) => ctx.step('loop', () => agent.prompt(createPrompt({ user: 'Keep adding', responseFormat: Sum }))));

    const { cause } = workflowErrorOf(errorOf(run.outcome));
    expect(cause).toBeInstanceOf(MaxTurnsExceededError);
    expect(cause).toMatchObject({ maxTurns: 2, agentName: 'looper' });
    const step = stepNamed(run.workflow.node, 'loop');
    const prompt = onlyNodeOfKind(step, 'agentPrompt');
    expect([step.status, prompt.status]).toEqual(['failed', 'failed']);
    expect(onlyEventOn(prompt, 'agentPromptEnd')).toMatchObject({
      status: 'failed',
      error: expect.objectContaining({ name: 'MaxTurnsExceededError' }),
    });
    expect(prompt.children.map((child) => [child.kind, child.status])).toEqual([
      ['toolCall', 'completed'],
      ['toolCall', 'completed'],
    ]);
    expect(stillRunning(run.workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('a failed call still reports the tokens its turns spent (event, node and rollup)', async () => {
    const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const model = new ScriptedModel([toolUse('add', { a: 1, b: 2 }, { usage }), toolUse('add', { a: 3, b: 4 }, { usage })]);
    const agent = createAgent({ name: 'looper', client: model.client(), tools: [adder()], maxTurns: 2 });
    const run = await runFlow((ctx) => ctx.step('loop', () => agent.prompt(createPrompt({ user: 'Keep adding', responseFormat: Sum }))));
    errorOf(run.outcome);
    const prompt = onlyNodeOfKind(run.workflow.node, 'agentPrompt');
    expect(onlyEventOn(prompt, 'agentPromptEnd').usage).toMatchObject({ inputTokens: 200, outputTokens: 20 });
    expect(prompt.usage).toMatchObject({ inputTokens: 200, outputTokens: 20 });
    expect(usageRollup(run.workflow.node).get(run.workflow.node)).toMatchObject({ inputTokens: 200, outputTokens: 20 });
  });
});

describe('the tree after failures', () => {
  it('toTreeString marks every failed node with ✗ and no node is left running', async () => {
    const model = new ScriptedModel((request): ScriptStep => {
      switch (request.firstUserText) {
        case 'fine':
          return json({ answer: 'fine' });
        case 'garbled':
          return malformedJson();
        case 'loop':
          return toolUse('add', { a: 1, b: 1 });
        default:
          throw new Error(`unexpected prompt ${String(request.firstUserText)}`);
      }
    });
    const agent = createAgent({ name: 'mixed', client: model.client(), tools: [adder()], maxTurns: 2 });
    const ask = (user: string): Promise<unknown> => agent.prompt(createPrompt({ user, responseFormat: Answer }));
    const run = await runFlow(async (ctx) => {
      const settled = await Promise.allSettled([
        ctx.step('good', () => ask('fine')),
        ctx.step('malformed', () => ask('garbled')),
        ctx.step('overrun', () => ask('loop')),
      ]);
      const failures = settled.filter((result) => result.status === 'rejected').length;
      if (failures > 0) throw new Error(`${failures} steps failed`);
      return settled;
    });
    expect((errorOf(run.outcome) as Error).message).toContain('2 steps failed');

    const root = run.workflow.node;
    const nodes = allNodes(root);
    expect(stillRunning(root)).toEqual([]);
    expect(nodes.every((node) => node.status === 'completed' || node.status === 'failed')).toBe(true);
    const failed = nodes.filter((node) => node.status === 'failed').map((node) => `${node.name} [${node.kind}]`);
    expect(failed.sort()).toEqual(
      ['flow [workflow]', 'malformed [step]', 'mixed: garbled [agentPrompt]', 'mixed: loop [agentPrompt]', 'overrun [step]'].sort(),
    );

    const tree = new WorkflowTreeDebugger(run.workflow).toTreeString();
    const lines = tree.split('\n');
    for (const label of failed) {
      expect(lines.some((line) => line.includes(`✗ ${label}`)), `✗ line for ${label} in\n${tree}`).toBe(true);
    }
    for (const label of ['good [step]', 'mixed: fine [agentPrompt]']) {
      expect(lines.some((line) => line.includes(`✓ ${label}`)), `✓ line for ${label} in\n${tree}`).toBe(true);
    }
    expect(lines.filter((line) => line.includes('[toolCall]')).every((line) => line.includes('✓ add'))).toBe(true);
    expect(tree).not.toContain('◐');
    expect(tree).not.toContain('(running)');
    // The failing steps say why.
    expect(lines.find((line) => line.includes('malformed [step]'))).toMatch(/not valid JSON/);
    expect(lines.find((line) => line.includes('overrun [step]'))).toMatch(/maxTurns \(2\)/);
  });

  it('a step failing inside Promise.all leaves no sibling running once run() has rejected', async () => {
    const model = new ScriptedModel((request) =>
      request.firstUserText === 'question 0' ? malformedJson() : json({ answer: 'late' }, { delayMs: 20 }),
    );
    const agent = createAgent({ name: 'racer', client: model.client() });
    const run = await runFlow((ctx) =>
      Promise.all(
        [0, 1, 2].map((n) => ctx.step(`q${n}`, () => agent.prompt(createPrompt({ user: `question ${n}`, responseFormat: Answer })))),
      ),
    );
    expect((workflowErrorOf(errorOf(run.outcome)).cause)).toBeInstanceOf(StructuredOutputError);
    expect(stillRunning(run.workflow.node)).toEqual([]);
  });
});
