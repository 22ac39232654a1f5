import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow } from 'groundswell';
import { completeGoalTool } from 'groundswell/plans';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { agentModel } from '../support/model-path.js';
import { budgetErrorIn } from './budget-helpers.js';

const PLAN = `# Ship the report

## Goals

1. [/] goal: the report lists every team
  - subtle failure mode: teams with no activity are dropped
  - discriminator: report.md has one row per team
  - evidence:
    - report.md: "| alpha | 3 |"

## Log
`;

describe('the judge', () => {
  it("counts against the budget of the step that called it: the worker's next request is refused", async () => {
    const root = mkdtempSync(join(tmpdir(), 'gs-budget-judge-'));
    const planPath = join(root, 'PLAN.md');
    writeFileSync(planPath, PLAN);
    writeFileSync(join(root, 'report.md'), '| alpha | 3 |\n');
    const judge = new ScriptedModel([json({ review: 'Checked report.md.\nVERDICT: accept\nmissing: ' })]);
    const worker = new ScriptedModel([toolUse('CompleteGoal', { goal: 'the report lists every team' }), json({ done: true })]);
    const agent = createAgent({ name: 'worker', ...(await agentModel(worker)), tools: [completeGoalTool({ planPath, root, judge: await agentModel(judge) })] });
    const workflow = createWorkflow({ name: 'work' }, (ctx) =>
      ctx.step('finish', () => agent.prompt(createPrompt({ user: 'Finish', responseFormat: z.object({ done: z.boolean() }) })), { budget: { modelRequests: 2 } }),
    );
    const error = await workflow.run().catch((e: unknown) => e);
    // Worker's first request + the judge's = 2: the worker's second would be the third.
    expect(judge.requests).toHaveLength(1);
    expect(worker.requests).toHaveLength(1);
    expect(budgetErrorIn(error)).toMatchObject({ budgetPath: 'work / finish', dimension: 'modelRequests', limit: 2, spent: 2 });
  });
});
