/**
 * Example 13: goal plans signed off by a read-only judge.
 *
 * - a project in a temp folder with a plan file in the seed's shape (title, context, `## User voice`,
 *   `## Goals` with a subtle failure mode, a discriminator and an evidence list per goal, `## Log`,
 *   `## Learnings`) and the artifacts its evidence cites
 * - a working agent with a small local `add_evidence` tool (`appendEvidence` adds items to a goal's
 *   evidence list in the plan, every other byte kept) and `completeGoalTool(...)`, the `CompleteGoal` tool
 * - each CompleteGoal call runs a fresh judge agent, with its own client, that never sees the
 *   worker's conversation and can only read files under the project root
 * - goal 1: the judge rejects the first attempt (the evidence does not say how report.md was
 *   produced); the goal stays open and the worker is told what is missing; the worker adds the
 *   command and the saved log, calls again, and the judge reads the log and accepts
 * - goal 2: signed off on the first attempt
 * - accepted goals are ticked `[x]` with a sign-off line in `## Log`; every sign-off is a
 *   `goalSignOff` event and a `sign-off accept/reject` line in the tree
 * - the judge is priced like the worker (`judge: { pricing }`), so the workflow's cost includes it
 *
 * Offline by default (two scripted models: the worker's and the judge's). With ANTHROPIC_API_KEY
 * set both agents use the real API (the judge then decides for itself).
 * Run: npx tsx examples/13-goal-plans-judge.ts
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, WorkflowTreeDebugger } from 'groundswell';
import { appendEvidence, completeGoalTool, findGoal, parsePlan, readOnlyTools } from 'groundswell/plans';
import { json, toolUse } from 'groundswell/testing';
import { assertScriptsComplete, exampleClient, online, tokens } from './support/model.js';

// ---- the project: a plan and the artifacts its evidence will cite --------------------------------

const PLAN = `# Weekly activity report

The team leads want a weekly report built from the team list, and a one-line summary for the
mailing list.

## User voice

- > "the report must list every team, even the quiet ones"
- > "the summary should say how many teams were active"

## Goals

1. [/] goal: the report lists every team
  - subtle failure mode: the report renders but silently drops teams with no commits
  - discriminator: out/report.md has one row per team in teams.txt, quiet teams included
  - evidence: (empty until sign-off)
2. [ ] goal: the summary counts only active teams
  - subtle failure mode: the count includes teams with 0 commits
  - discriminator: out/summary.txt gives the number of report rows with more than 0 commits
  - evidence: (empty until sign-off)

## Future work

## Log

## Learnings
`;

const FILES: Record<string, string> = {
  'PLAN.md': PLAN,
  'teams.txt': 'alpha\nbeta\ngamma\n',
  'out/report.md': '| team | commits |\n| --- | --- |\n| alpha | 12 |\n| beta | 0 |\n| gamma | 5 |\n',
  'out/summary.txt': '2 of 3 teams active this week (beta had no commits)\n',
  'logs/report-run.log':
    '$ npm run report -- --week 2026-W48\nread teams.txt: 3 teams\nwrote out/report.md: 3 rows\nwrote out/summary.txt\n',
};

const root = mkdtempSync(join(tmpdir(), 'gs-example-13-'));
for (const [path, content] of Object.entries(FILES)) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}
const planPath = join(root, 'PLAN.md');

// ---- the worker's local tool: add items to a goal's evidence list in the plan --------------------

const addEvidence = defineTool({
  name: 'add_evidence',
  description:
    "Add items to the evidence list of a goal in PLAN.md. Each item: the source (a path or a command), a verbatim quote of what you saw, and a one-line reading.",
  effect: 'mutate',
  input: z.object({ goal: z.string().min(1), items: z.array(z.string().min(1)).min(1) }),
  execute: ({ goal, items }) => {
    // appendEvidence finds the goal despite small wording drift and keeps every other byte.
    const plan = appendEvidence(readFileSync(planPath, 'utf8'), goal, items);
    writeFileSync(planPath, plan);
    return `added ${items.length} evidence item(s) for "${findGoal(plan, goal).text}"`;
  },
});

// ---- offline scripts: the worker's moves, and the judge's reviews (a separate client) ------------

const REPORT_ROWS = 'out/report.md: "| alpha | 12 |", "| beta | 0 |", "| gamma | 5 |" (one row per team in teams.txt, quiet beta included)';
const PROVENANCE =
  'logs/report-run.log: "$ npm run report -- --week 2026-W48" and "wrote out/report.md: 3 rows" (the report was produced by this command; its output was saved to this log)';
const GOAL_1 = 'the report lists every team';
const GOAL_2 = 'the summary counts only active teams';

const workerClient = exampleClient([
  // goal 1, first attempt: the rows are quoted, but nothing says where report.md came from
  toolUse('add_evidence', { goal: GOAL_1, items: [REPORT_ROWS] }, tokens(900, 80)),
  toolUse('CompleteGoal', { goal: GOAL_1 }, tokens(1000, 20)),
  // rejected: add the command and the saved log, then ask again
  toolUse('add_evidence', { goal: GOAL_1, items: [PROVENANCE] }, tokens(1100, 110)),
  toolUse('CompleteGoal', { goal: GOAL_1 }, tokens(1250, 20)),
  json({ done: true, note: 'goal 1 signed off after adding provenance' }, tokens(1300, 25)),
  // goal 2, in a second prompt
  toolUse(
    'add_evidence',
    {
      goal: GOAL_2,
      items: [
        'out/summary.txt: "2 of 3 teams active this week (beta had no commits)" (beta, the 0-commit row, is not counted)',
        'logs/report-run.log: "$ npm run report -- --week 2026-W48" and "wrote out/summary.txt" (the summary came from the same saved run)',
      ],
    },
    tokens(700, 90),
  ),
  toolUse('CompleteGoal', { goal: 'the summary counts the active teams only' }, tokens(820, 20)), // small wording drift is fine
  json({ done: true, note: 'goal 2 signed off' }, tokens(860, 20)),
]);

const review = (body: string, verdict: 'accept' | 'reject', missing: string) =>
  json({ review: `${body}\nVERDICT: ${verdict}\nmissing: ${missing}` }, tokens(1500, 60));

const judgeClient = exampleClient([
  // sign-off 1 (goal 1): check 3, provenance, fails; the check order stops there
  review(
    'The evidence quotes rows of out/report.md but says nothing about how that file was produced.',
    'reject',
    'provenance — how was report.md produced?',
  ),
  // sign-off 2 (goal 1): provenance given; spot-check the cited files
  toolUse('read_file', { path: 'logs/report-run.log' }, tokens(1400, 30)),
  toolUse('read_file', { path: 'out/report.md' }, tokens(1500, 30)),
  review(
    'The log shows the command and "wrote out/report.md: 3 rows"; report.md has the quoted rows for all three teams in teams.txt, beta (0 commits) included.',
    'accept',
    '',
  ),
  // sign-off 3 (goal 2)
  toolUse('read_file', { path: 'out/summary.txt' }, tokens(1300, 30)),
  review('summary.txt says 2 of 3, matching the two report rows with commits above 0; beta is excluded.', 'accept', ''),
]);

// ---- the agents and the workflow ------------------------------------------------------------------

// One price list for both agents: the judge's tokens then carry a cost too, and roll up into the
// step and the workflow it ran under (the tree shows the totals).
const PRICING = { 'claude-sonnet-5-5': { inputPerMTok: 3, outputPerMTok: 15 } };

let minute = 0;
const worker = createAgent({
  name: 'worker',
  system: 'You work through a plan file. Fill a goal\'s evidence with add_evidence, then call CompleteGoal. If it is rejected, supply what is missing and call it again.',
  tools: [
    ...readOnlyTools(root),
    addEvidence,
    completeGoalTool({
      planPath,
      root,
      judge: { client: judgeClient, pricing: PRICING, maxTokens: 2048 },
      // Offline, a fixed clock (five minutes per sign-off) keeps the log lines the same on every run.
      ...(online ? {} : { now: () => new Date(Date.UTC(2026, 10, 30, 10, minute++ * 5)) }),
    }),
  ],
  client: workerClient,
  pricing: PRICING,
});

const Done = z.object({ done: z.boolean(), note: z.string() });
const goalPrompt = (goal: string) =>
  createPrompt({ name: `goal: ${goal}`, user: `Finish this goal of PLAN.md and get it signed off: ${goal}`, responseFormat: Done });

const work = createWorkflow({ name: 'weekly report plan', goal: 'Get both goals of PLAN.md signed off' }, async (ctx) => {
  await ctx.step('goal 1', () => worker.prompt(goalPrompt(GOAL_1)));
  await ctx.step('goal 2', () => worker.prompt(goalPrompt(GOAL_2)));
});

console.log('== tool calls and sign-offs, live ==');
work.addObserver({
  onEvent: (event) => {
    if (event.type === 'toolInvocation') {
      const input = JSON.stringify(event.input);
      const output = event.output.split('\n')[0] ?? '';
      console.log(`  ${event.toolName}(${input.length > 70 ? `${input.slice(0, 70)}…` : input}) -> ${output}`);
    } else if (event.type === 'goalSignOff') {
      console.log(`  >> goalSignOff: ${event.verdict} "${event.goal}"${event.missing ? ` (missing: ${event.missing})` : ''}`);
    }
  },
});

await work.run();

const plan = readFileSync(planPath, 'utf8');
const lines = plan.split('\n');
const section = (heading: string) => {
  const found = parsePlan(plan).sections.find((s) => s.heading === heading);
  return found === undefined ? '' : lines.slice(found.line, found.endLine).join('\n').trimEnd();
};

console.log('\n== PLAN.md: ## Goals after the run ==');
console.log(section('Goals'));
console.log('\n== PLAN.md: ## Log ==');
console.log(section('Log'));
console.log('\n== tree: the sign-offs under the CompleteGoal calls ==');
console.log(new WorkflowTreeDebugger(work).toTreeString());

assertScriptsComplete();
rmSync(root, { recursive: true, force: true });
