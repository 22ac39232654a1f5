import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  exportRun,
  Step,
  StructuredOutputError,
  usageRollup,
  UsageError,
  Workflow,
  WorkflowError,
  WorkflowTreeDebugger,
  type WorkflowContext,
  type WorkflowNode,
} from 'groundswell';
import { DEFAULT_USAGE, json, malformedJson, ScriptedModel } from 'groundswell/testing';
import { onlyChild, runningNodes } from '../support/agent-helpers.js';
import { caught } from '../support/decorators-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';
import { walkTree } from '../../src/util/tree-walk.js';
import { Count, nodesOfKind, revision, shape } from './helpers.js';

const Title = z.object({ title: z.string() });
const Words = z.object({ words: z.number() });
const draftPrompt = createPrompt({ name: 'draft', user: 'Write a title.', responseFormat: Title });
const betterPrompt = createPrompt({ name: 'better', user: 'Write a longer, more specific title.', responseFormat: Title });

function flow<R>(executor: (ctx: WorkflowContext) => Promise<R>) {
  const workflow = createWorkflow<R>({ name: 'titles', clock: new FakeClock() }, executor);
  return { workflow, recording: record(workflow) };
}

function childNamed(parent: WorkflowNode, name: string): WorkflowNode {
  const found = parent.children.find((child) => child.name === name);
  if (found === undefined) throw new Error(`expected a child "${name}" under "${parent.name}"`);
  return found;
}

describe('ctx.replaceLastPromptResult(prompt, agent)', () => {
  it('asks again and puts the new call in the old one’s place; the old node hangs beneath it (no fork)', async () => {
    const model = new ScriptedModel([json({ title: 'Ok' }), json({ title: 'Tides of the North Sea' }), json({ words: 5 })]);
    const agent = createAgent({ name: 'writer', client: model.client() });
    const seen: unknown[] = [];
    const { workflow, recording } = flow(async (ctx) => {
      const first = await ctx.step('draft', () => agent.prompt(draftPrompt));
      seen.push(ctx.lastPromptResult);
      if (first.title.length < 5) {
        const better = await ctx.step('improve', () => ctx.replaceLastPromptResult(betterPrompt, agent));
        seen.push(better);
      }
      seen.push(ctx.lastPromptResult);
      const { title } = Title.parse(ctx.lastPromptResult);
      return ctx.step('count', () => agent.prompt(createPrompt({ name: 'count', user: `Count the words of: ${title}`, responseFormat: Words })));
    });

    await expect(workflow.run()).resolves.toEqual({ words: 5 });
    expect(seen).toEqual([{ title: 'Ok' }, { title: 'Tides of the North Sea' }, { title: 'Tides of the North Sea' }]);
    // The later step was asked about the new value.
    expect(model.requests[2]?.firstUserText).toContain('Count the words of: Tides of the North Sea');
    expect(model.requests[1]?.firstUserText).toContain('Write a longer, more specific title.');

    // In place: the draft step still has exactly one agentPrompt child, now the new call...
    const draft = childNamed(workflow.node, 'draft');
    expect(shape(draft)).toEqual(['agentPrompt:writer: better']);
    const replacement = onlyChild(draft, 'agentPrompt');
    expect(replacement.status).toBe('completed');
    expect(replacement.parent).toBe(draft);
    // ...with the old call beneath it, not beside it.
    expect(shape(replacement)).toEqual(['agentPrompt:writer: draft']);
    const original = onlyChild(replacement, 'agentPrompt');
    expect(original.parent).toBe(replacement);
    expect(original.status).toBe('completed');
    expect(nodesOfKind(workflow.node, 'agentPrompt').map((n) => n.name)).toEqual(['writer: better', 'writer: draft', 'writer: count']);

    // A promptReplaced event on the new node, naming the old one.
    expect(eventsOfType(recording.events, 'promptReplaced')).toEqual([
      expect.objectContaining({ nodeId: replacement.id, replacedNodeId: original.id }),
    ]);
    expect(replacement.events.map((e) => e.type)).toContain('promptReplaced');

    // The debugger shows the replacement; the serialised tree agrees on the parents.
    const tree = new WorkflowTreeDebugger(workflow).toTreeString();
    expect(tree).toMatch(/writer: better \[agentPrompt\].*\(replaces the answer below\)/);
    expect(tree.indexOf('writer: better')).toBeLessThan(tree.indexOf('writer: draft'));
    const exported = exportRun(workflow.node);
    const draftJson = exported.root.children.find((c) => c.name === 'draft');
    expect(draftJson?.children.map((c) => c.id)).toEqual([replacement.id]);
    expect(draftJson?.children[0]?.children.map((c) => [c.id, c.parentId])).toEqual([[original.id, replacement.id]]);

    // Nothing is lost: both calls' usage still rolls up to the draft step and the workflow.
    const totals = usageRollup(workflow.node);
    expect(totals.get(draft)).toMatchObject({ inputTokens: 2 * DEFAULT_USAGE.input_tokens });
    expect(totals.get(workflow.node)).toMatchObject({ inputTokens: 3 * DEFAULT_USAGE.input_tokens });
    expect(runningNodes(workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('moves its own new call when a call beside it (a fan-out) finishes after it: each node once, every token counted', async () => {
    const model = new ScriptedModel([json({ title: 'Ok' }), json({ title: 'Tides of the North Sea' }), json({ words: 5 })]);
    const agent = createAgent({ name: 'writer', client: model.client() });
    const countPrompt = createPrompt({ name: 'count', user: 'Count the words.', responseFormat: Words });
    let besideMayAsk!: () => void;
    const besideGate = new Promise<void>((resolve) => (besideMayAsk = resolve));
    const { workflow } = flow(async (ctx) => {
      await ctx.step('draft', () => agent.prompt(draftPrompt));
      const beside = ctx.step('beside', () => besideGate.then(() => agent.prompt(countPrompt)));
      // The beside call is asked and answered after the replacement's call, before the
      // replacement looks for its call: it is then the workflow's last recorded call.
      const asker = {
        async prompt<T>(prompt: Parameters<typeof agent.prompt<T>>[0]): Promise<T> {
          const value = await agent.prompt(prompt);
          besideMayAsk();
          await beside;
          return value;
        },
      };
      await Promise.all([ctx.step('improve', () => ctx.replaceLastPromptResult(betterPrompt, asker)), beside]);
    });
    await workflow.run();
    const ids = [...walkTree(workflow.node)].map((node) => node.id);
    expect(new Set(ids).size).toBe(ids.length);
    const draft = childNamed(workflow.node, 'draft');
    const replacement = onlyChild(draft, 'agentPrompt');
    expect(replacement.name).toBe('writer: better');
    expect(shape(replacement)).toEqual(['agentPrompt:writer: draft']);
    expect(shape(childNamed(workflow.node, 'beside'))).toEqual(['agentPrompt:writer: count']);
    expect(usageRollup(workflow.node).get(workflow.node)).toMatchObject({ inputTokens: 3 * DEFAULT_USAGE.input_tokens });
  });

  it('when retention pruned the old call’s step, asks where the code runs and moves nothing: the new call is in the tree and its tokens in the total', async () => {
    const model = new ScriptedModel([json({ title: 'Ok' }), json({ title: 'Tides of the North Sea' })]);
    const agent = createAgent({ name: 'writer', client: model.client() });
    const workflow = createWorkflow({ name: 'titles', retention: { maxChildrenPerNode: 1 } }, async (ctx) => {
      await ctx.step('draft', () => agent.prompt(draftPrompt));
      for (let i = 0; i < 40; i += 1) await ctx.step(`later ${i}`, () => i);
      return ctx.step('improve', () => ctx.replaceLastPromptResult(betterPrompt, agent));
    });
    await expect(workflow.run()).resolves.toEqual({ title: 'Tides of the North Sea' });
    expect(workflow.node.children.some((child) => child.name === 'draft')).toBe(false);
    expect(shape(childNamed(workflow.node, 'improve'))).toEqual(['agentPrompt:writer: better']);
    expect(usageRollup(workflow.node).get(workflow.node)).toMatchObject({ inputTokens: 2 * DEFAULT_USAGE.input_tokens });
  });

  it('replacing twice chains: newest on top, each earlier answer beneath the one that replaced it', async () => {
    const model = new ScriptedModel([json({ title: 'A' }), json({ title: 'B' }), json({ title: 'C' })]);
    const agent = createAgent({ name: 'writer', client: model.client() });
    const third = createPrompt({ name: 'best', user: 'Best title?', responseFormat: Title });
    const { workflow, recording } = flow(async (ctx) => {
      await ctx.step('draft', () => agent.prompt(draftPrompt));
      await ctx.replaceLastPromptResult(betterPrompt, agent);
      await ctx.replaceLastPromptResult(third, agent);
      return ctx.lastPromptResult;
    });
    await expect(workflow.run()).resolves.toEqual({ title: 'C' });
    const draft = onlyChild(workflow.node, 'step');
    const best = onlyChild(draft, 'agentPrompt');
    const better = onlyChild(best, 'agentPrompt');
    const first = onlyChild(better, 'agentPrompt');
    expect([best.name, better.name, first.name]).toEqual(['writer: best', 'writer: better', 'writer: draft']);
    expect(eventsOfType(recording.events, 'promptReplaced').map((e) => [e.nodeId, e.replacedNodeId])).toEqual([
      [better.id, first.id],
      [best.id, better.id],
    ]);
    model.assertComplete();
  });

  it('works inside the step that made the call, and the replacement call may itself reflect', async () => {
    const model = new ScriptedModel([
      json({ title: 'A' }),
      json({ title: 7 }),
      revision('The title must be text.', 'Answer title as a string.'),
      json({ title: 'A proper title' }),
    ]);
    const agent = createAgent({ name: 'writer', client: model.client() });
    const { workflow } = flow((ctx) =>
      ctx.step('write', async () => {
        await agent.prompt(draftPrompt);
        return ctx.replaceLastPromptResult(createPrompt({ name: 'better', user: 'Better?', responseFormat: Title, enableReflection: true }), agent);
      }),
    );
    await expect(workflow.run()).resolves.toEqual({ title: 'A proper title' });
    const step = onlyChild(workflow.node, 'step');
    const replacement = onlyChild(step, 'agentPrompt');
    expect(shape(replacement)).toEqual(['reflection:reflect on attempt 1 (prompt)', 'agentPrompt:writer: draft']);
    model.assertComplete();
  });

  it('a replacement that fails leaves the previous result in place and the error reaches the caller', async () => {
    const model = new ScriptedModel([json({ title: 'Ok' }), malformedJson()]);
    const agent = createAgent({ name: 'writer', client: model.client() });
    let caughtError: unknown;
    const { workflow, recording } = flow(async (ctx) => {
      await ctx.step('draft', () => agent.prompt(draftPrompt));
      caughtError = await caught(() => ctx.step('improve', () => ctx.replaceLastPromptResult(betterPrompt, agent)));
      return ctx.lastPromptResult;
    });
    await expect(workflow.run()).resolves.toEqual({ title: 'Ok' });
    expect(caughtError).toBeInstanceOf(WorkflowError);
    expect((caughtError as WorkflowError).cause).toBeInstanceOf(StructuredOutputError);
    const draft = childNamed(workflow.node, 'draft');
    // The original is still the draft step's first child, completed; the failed attempt is recorded, not swapped in.
    expect(draft.children[0]?.name).toBe('writer: draft');
    expect(draft.children[0]?.status).toBe('completed');
    expect(draft.children[0]?.children).toEqual([]);
    expect(eventsOfType(recording.events, 'promptReplaced')).toEqual([]);
    expect(runningNodes(workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('with no previous prompt: a UsageError; the run fails with a WorkflowError caused by it; nothing running', async () => {
    const model = new ScriptedModel([]);
    const agent = createAgent({ name: 'writer', client: model.client() });
    const { workflow, recording } = flow((ctx) => ctx.step('improve', () => ctx.replaceLastPromptResult(betterPrompt, agent)));
    const error = await caught(() => workflow.run());
    expect(error).toBeInstanceOf(WorkflowError);
    const cause = (error as WorkflowError).cause;
    expect(cause).toBeInstanceOf(UsageError);
    expect((cause as Error).message).toContain('no earlier agent result to replace');
    expect((cause as Error).message).toContain('"titles"');
    expect(model.requests).toHaveLength(0);
    expect(workflow.status).toBe('failed');
    expect(onlyChild(workflow.node, 'step').status).toBe('failed');
    expect(nodesOfKind(workflow.node, 'agentPrompt')).toEqual([]);
    expect(eventsOfType(recording.events, 'promptReplaced')).toEqual([]);
    expect(runningNodes(workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('directly in the executor (no step) with no previous prompt: the run fails the same way', async () => {
    const model = new ScriptedModel([]);
    const agent = createAgent({ name: 'writer', client: model.client() });
    const { workflow } = flow((ctx) => ctx.replaceLastPromptResult(betterPrompt, agent));
    const error = await caught(() => workflow.run());
    expect(error).toBeInstanceOf(WorkflowError);
    expect((error as WorkflowError).cause).toBeInstanceOf(UsageError);
    expect(runningNodes(workflow.node)).toEqual([]);
    model.assertComplete();
  });

  it('only this workflow’s own calls count: a call in a child workflow is not the parent’s last result', async () => {
    const model = new ScriptedModel([json({ title: 'From the child' })]);
    const agent = createAgent({ name: 'writer', client: model.client() });
    const { workflow } = flow(async (ctx) => {
      await ctx.spawnWorkflow(createWorkflow({ name: 'child' }, (child) => child.step('draft', () => agent.prompt(draftPrompt))));
      return ctx.lastPromptResult;
    });
    await expect(workflow.run()).resolves.toBeUndefined();
    model.assertComplete();
  });

  it('ctx.lastPromptResult is undefined before any call and the latest value after each call', async () => {
    const model = new ScriptedModel([json({ title: 'One' }), json({ title: 'Two' })]);
    const agent = createAgent({ name: 'writer', client: model.client() });
    const seen: unknown[] = [];
    const { workflow } = flow(async (ctx) => {
      seen.push(ctx.lastPromptResult);
      await ctx.step('a', () => agent.prompt(draftPrompt));
      seen.push(ctx.lastPromptResult);
      await ctx.step('b', () => agent.prompt(betterPrompt));
      seen.push(ctx.lastPromptResult);
    });
    await workflow.run();
    expect(seen).toEqual([undefined, { title: 'One' }, { title: 'Two' }]);
    model.assertComplete();
  });

  it('a reflection pass’s own call is not the workflow’s last prompt result', async () => {
    const model = new ScriptedModel([json({ title: 'Real answer' }), json({ n: 'x' }), revision('c', 'g'), json({ n: 'y' })]);
    const agent = createAgent({ name: 'writer', client: model.client() });
    const { workflow } = flow(async (ctx) => {
      await ctx.step('title', () => agent.prompt(draftPrompt));
      await caught(() => ctx.step('count', () => agent.reflect(createPrompt({ user: 'How many?', responseFormat: Count }))));
      return ctx.lastPromptResult;
    });
    await expect(workflow.run()).resolves.toEqual({ title: 'Real answer' });
  });

  it('inside a class workflow, a @Step can replace through a functional child workflow’s ctx', async () => {
    // There is no replaceLastPromptResult on Workflow itself; a functional child workflow run from
    // the @Step has its own ctx, and replaces the child's own last call.
    const model = new ScriptedModel([json({ title: 'Ok' }), json({ title: 'Much better title' })]);
    const agent = createAgent({ name: 'writer', client: model.client() });
    class Titles extends Workflow<string> {
      constructor() {
        super({ name: 'class-titles', clock: new FakeClock() });
      }
      @Step() async write(): Promise<string> {
        const child = createWorkflow({ name: 'draft-and-improve' }, async (ctx) => {
          const first = await ctx.step('draft', () => agent.prompt(draftPrompt));
          return first.title.length < 5 ? ctx.replaceLastPromptResult(betterPrompt, agent) : first;
        });
        return (await child.run()).title;
      }
      override async run(): Promise<string> {
        return this.write();
      }
    }
    const workflow = new Titles();
    await expect(workflow.run()).resolves.toBe('Much better title');
    const step = onlyChild(workflow.node, 'step');
    const child = onlyChild(step, 'workflow');
    const draft = onlyChild(child, 'step');
    expect(shape(draft)).toEqual(['agentPrompt:writer: better']);
    expect(shape(onlyChild(draft, 'agentPrompt'))).toEqual(['agentPrompt:writer: draft']);
    model.assertComplete();
  });
});
