import { mkdtempSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, type WorkflowEvent } from 'groundswell';
import { createPlanDrafter, signOffGoal } from 'groundswell/plans';
import { ScriptedModel, json, toolUse, type RecordedRequest } from 'groundswell/testing';
import { agentModel } from '../support/model-path.js';

const PLAN = `# Tidy the docs

Make the docs readable.

## Goals

1. [/] goal: every page has a title
  - subtle failure mode: titles exist but are all "Untitled"
  - discriminator: each page's first line is a real heading
  - evidence:
    - docs/a.md: "# Install" (a real heading)
2. [ ] goal: links are not broken
  - discriminator: the link checker reports 0 broken links
  - evidence: (empty until sign-off)

## Log

## Learnings
`;

function project(plan = PLAN) {
  const root = mkdtempSync(join(tmpdir(), 'gs-flow-'));
  writeFileSync(join(root, 'PLAN.md'), plan);
  writeFileSync(join(root, 'notes.txt'), 'hello');
  return { root, planPath: join(root, 'PLAN.md') };
}

function systemOf(request: RecordedRequest | undefined): string {
  const system = request?.body.system;
  if (typeof system === 'string') return system;
  return Array.isArray(system) ? system.map((b: { text: string }) => b.text).join('\n---\n') : '';
}

const noop = defineTool({ name: 'look', description: 'Look around', input: z.object({}), execute: () => 'nothing new' });
const Done = z.object({ done: z.boolean() });

describe('the plan in view while working', () => {
  it('sends the whole file at the start, then the folded plan only when it went stale; never into the history', async () => {
    const { planPath } = project();
    const model = new ScriptedModel([...Array.from({ length: 4 }, () => toolUse('look', {})), json({ done: true })]);
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)), tools: [noop], plan: { path: planPath, staleAfterTurns: 3 } });
    await agent.prompt(createPrompt({ user: 'Tidy', responseFormat: Done }));
    const systems = model.requests.map(systemOf);
    expect(systems[0]).toContain('<plan-resync>');
    expect(systems[0]).toMatch(/^## Learnings/m); // the whole file, below the fold too
    expect(systems[1]).not.toContain('<plan-');
    expect(systems[2]).not.toContain('<plan-');
    expect(systems[3]).toContain('<plan-reminder>'); // the third request in a row without an edit
    expect(systems[3]).not.toMatch(/^## Learnings/m); // the folded plan only
    expect(systems[4]).not.toContain('<plan-'); // and then quiet again
    for (const request of model.requests) expect(JSON.stringify(request.body.messages)).not.toContain('<plan-');
    model.assertComplete();
  });

  it('an edit to the plan resets the staleness count', async () => {
    const { planPath } = project();
    let n = 0;
    const touch = defineTool({
      name: 'look',
      description: 'Look and note',
      input: z.object({}),
      execute: () => {
        n += 1;
        writeFileSync(planPath, `${readFileSync(planPath, 'utf8')}- note ${n}\n`);
        return 'noted';
      },
    });
    const model = new ScriptedModel([...Array.from({ length: 4 }, () => toolUse('look', {})), json({ done: true })]);
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)), tools: [touch], plan: { path: planPath, staleAfterTurns: 3 } });
    await agent.prompt(createPrompt({ user: 'Tidy', responseFormat: Done }));
    expect(model.requests.slice(1).map(systemOf).some((s) => s.includes('<plan-reminder>'))).toBe(false);
  });

  it('a huge plan is bounded when re-sent', async () => {
    const huge = PLAN.replace('## Log', `${'- filler line for the appendix\n'.repeat(5_000)}\n## Log`);
    const { planPath } = project(huge);
    const model = new ScriptedModel([json({ done: true })]);
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)), plan: { path: planPath, resyncChars: 5_000 } });
    await agent.prompt(createPrompt({ user: 'Tidy', responseFormat: Done }));
    expect(systemOf(model.requests[0]).length).toBeLessThan(6_000);
    expect(systemOf(model.requests[0])).toContain('[plan truncated');
  });
});

describe('drafting a plan', () => {
  it('explores read-only and writes the plan file, and has no way to write anything else', async () => {
    const { root } = project();
    const planPath = join(root, 'NEW_PLAN.md');
    const model = new ScriptedModel([
      toolUse('read_file', { path: 'notes.txt' }),
      toolUse('write_plan', { content: '# New plan\n\n## Goals\n\n1. [ ] goal: ship\n\n## Log\n' }),
      json({ done: true }),
    ]);
    const drafter = createPlanDrafter({ root, planPath, ...(await agentModel(model)) });
    await drafter.prompt(createPrompt({ user: 'Plan the release', responseFormat: Done }));
    expect(readFileSync(planPath, 'utf8')).toContain('goal: ship');
    const tools = (model.requests[0]?.body.tools ?? []).map((t) => ('name' in t ? t.name : ''));
    expect(tools.sort()).toEqual(['find_files', 'grep', 'list_dir', 'read_file', 'write_plan']);
    expect(systemOf(model.requests[0])).toContain('the only file you may');
    expect(existsSync(join(root, 'notes.txt'))).toBe(true);
    model.assertComplete();
  });
});

describe('workflows and plans', () => {
  it("a workflow's plan feeds the active goal into the goal ancestry of its agent calls", async () => {
    const { planPath } = project();
    const model = new ScriptedModel([json({ done: true })]);
    const agent = createAgent({ name: 'worker', ...(await agentModel(model)) });
    const wf = createWorkflow({ name: 'docs', plan: planPath }, (ctx) => ctx.step('work', () => agent.prompt(createPrompt({ user: 'Go', responseFormat: Done }))));
    await wf.run();
    expect(systemOf(model.requests[0])).toContain('Goal: every page has a title');
  });

  it('a workflow step signs off a goal the same way, with the event under that step', async () => {
    const { root, planPath } = project();
    const judge = new ScriptedModel([json({ review: 'Read docs/a.md.\nVERDICT: accept\nmissing:' })]);
    const events: WorkflowEvent[] = [];
    const judgeModel = await agentModel(judge);
    const wf = createWorkflow({ name: 'docs' }, (ctx) =>
      ctx.step('sign off', () => signOffGoal({ planPath, root, judge: judgeModel }, 'every page has a title')),
    );
    wf.addObserver({ onEvent: (e) => events.push(e) });
    const result = await wf.run();
    expect(result).toMatchObject({ verdict: 'accept', judgeFailed: false });
    expect(readFileSync(planPath, 'utf8')).toContain('1. [x] goal: every page has a title');
    const signOff = events.find((e) => e.type === 'goalSignOff');
    const step = wf.node.children.find((n) => n.name === 'sign off');
    expect(signOff?.nodeId).toBe(step?.id);
  });
});
