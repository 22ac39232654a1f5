import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  WorkflowTreeDebugger,
  type GoalSignOffEvent,
  type WorkflowEvent,
} from 'groundswell';
import { completeGoalTool } from 'groundswell/plans';
import { ScriptedModel, json, toolUse } from 'groundswell/testing';
import { agentModel, providerPath } from '../support/model-path.js';

const PLAN = `# Ship the report

We want the weekly report generated automatically.

## User voice

- > "the report must list every team"

## Goals

1. [/] goal: the report lists every team
  - subtle failure mode: the report renders but silently drops teams with no activity
  - discriminator: report.md has one row per team in teams.txt
  - evidence:
    - report.md: "| alpha | 3 |" and "| beta | 0 |" (both teams present, beta had no activity)
2. [ ] goal: the report is sent by mail
  - subtle failure mode: the mail is queued but never sent
  - discriminator: the mail log shows a delivered message
  - evidence: (empty until sign-off)

## Future work

## Log

## Learnings
`;

function project() {
  const root = mkdtempSync(join(tmpdir(), 'gs-plan-'));
  writeFileSync(join(root, 'PLAN.md'), PLAN);
  writeFileSync(join(root, 'report.md'), '| alpha | 3 |\n| beta | 0 |\n');
  return { root, planPath: join(root, 'PLAN.md') };
}

const review = (verdict: string, missing: string) => json({ review: `Checked report.md.\nVERDICT: ${verdict}\nmissing: ${missing}` });

async function signOff(judgeScript: ConstructorParameters<typeof ScriptedModel>[0], goal: string) {
  const { root, planPath } = project();
  const judge = new ScriptedModel(judgeScript);
  const worker = new ScriptedModel([toolUse('CompleteGoal', { goal }), json({ done: true })]);
  const agent = createAgent({
    name: 'worker',
    ...(await agentModel(worker)),
    tools: [completeGoalTool({ planPath, root, judge: await agentModel(judge), now: () => new Date('2026-11-30T10:00:00Z') })],
  });
  const events: WorkflowEvent[] = [];
  const wf = createWorkflow({ name: 'work' }, (ctx) => ctx.step('finish', () => agent.prompt(createPrompt({ user: 'Finish', responseFormat: z.object({ done: z.boolean() }) }))));
  wf.addObserver({ onEvent: (e) => events.push(e) });
  await wf.run();
  const results = JSON.stringify(worker.requests[1]?.body.messages);
  return { plan: readFileSync(planPath, 'utf8'), judge, worker, events, results, wf };
}

describe('CompleteGoal', () => {
  it('accept: ticks the goal [x], appends a sign-off line to ## Log, keeps everything else byte for byte', async () => {
    const { plan, events, judge } = await signOff([toolUse('read_file', { path: 'report.md' }), review('accept', '')], 'The report lists every team');
    expect(plan).toContain('1. [x] goal: the report lists every team');
    expect(plan).toContain('## Log\n- 2026-11-30 10:00 signed off "the report lists every team": judge accepted');
    expect(plan.replace('[x] goal: the report lists', '[/] goal: the report lists').replace(/- 2026-11-30 10:00 signed off .*\n/, '')).toBe(PLAN);
    const signOffs = events.filter((e): e is GoalSignOffEvent => e.type === 'goalSignOff');
    expect(signOffs).toMatchObject([{ verdict: 'accept', judgeFailed: false, goal: 'the report lists every team' }]);
    // The judge read the project through its own read-only tools, in a fresh conversation.
    expect(judge.requests[0]?.body.tools?.map((t) => ('name' in t ? t.name : ''))).toEqual(expect.arrayContaining(['read_file', 'grep']));
    expect(JSON.stringify(judge.requests[0]?.body.messages)).not.toContain('Finish');
    judge.assertComplete();
  });

  it('reject: the goal stays open and the tool result says what is missing', async () => {
    const { plan, results } = await signOff([review('reject', 'provenance: how was report.md produced?')], 'the report lists every team');
    expect(plan).toBe(PLAN);
    expect(results).toContain('Missing: provenance: how was report.md produced?');
  });

  it('an empty evidence list is rejected without asking the judge', async () => {
    const { plan, judge, results } = await signOff([], 'the report is sent by mail');
    expect(plan).toBe(PLAN);
    expect(judge.requests).toHaveLength(0);
    expect(results).toContain('evidence list is empty');
  });

  it('a judge answer without a VERDICT line is a judge failure: signed off, and the log says so', async () => {
    const { plan, events } = await signOff([json({ review: 'Looks fine to me.' })], 'the report lists every team');
    expect(plan).toContain('[x] goal: the report lists every team');
    expect(plan).toMatch(/signed off "the report lists every team" WITHOUT a verdict: the judge failed/);
    expect(events.find((e) => e.type === 'goalSignOff')).toMatchObject({ judgeFailed: true });
  });

  it('a goal text that matches no goal is a tool error naming the closest goals', async () => {
    const { plan, results } = await signOff([], 'deploy the database');
    expect(plan).toBe(PLAN);
    // Chat Completions tool messages carry no error flag: only the Messages body shows it.
    if (!providerPath) expect(results).toContain('"is_error":true');
  });

  it('keeps edits made to the plan while the judge was reading', async () => {
    const { root, planPath } = project();
    const judge = new ScriptedModel(async () => {
      // The working agent (or a human) edits the plan during the review.
      writeFileSync(planPath, PLAN.replace('## Learnings\n', '## Learnings\n- mail server needs TLS\n'));
      return review('accept', '');
    });
    const tool = completeGoalTool({ planPath, root, judge: await agentModel(judge) });
    await tool.execute({ goal: 'the report lists every team' }, { env: {}, signal: undefined, agentName: 'x', toolUseId: 't' });
    const plan = readFileSync(planPath, 'utf8');
    expect(plan).toContain('- mail server needs TLS');
    expect(plan).toContain('[x] goal: the report lists every team');
  });

  it('the debugger shows the sign-off', async () => {
    const { wf } = await signOff([review('accept', '')], 'the report lists every team');
    expect(new WorkflowTreeDebugger(wf).toTreeString()).toContain('sign-off accept: the report lists every team');
  });
});
