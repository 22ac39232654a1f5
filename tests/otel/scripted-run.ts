import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createAgent, createPrompt, defineTool, Step, Task, Workflow, type AgentConfig } from 'groundswell';
import { completeGoalTool } from 'groundswell/plans';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { FakeClock } from '../support/fake-clock.js';

export const MODEL = 'claude-test-1';
export const SECRET = 'sk-live-0123456789abcdef';
export const Answer = z.object({ answer: z.string() });

/** Turn 1 calls `add`, turn 2 answers; every usage counter differs, so a swap or a double count shows. */
export function twoTurnModel(): ScriptedModel {
  return new ScriptedModel([
    toolUse('add', { a: 2, b: 3 }, {
      id: 'toolu_add_1',
      usage: { input_tokens: 20, output_tokens: 10, cache_creation_input_tokens: 4, cache_read_input_tokens: 2 },
    }),
    json({ answer: 'five' }, { usage: { input_tokens: 100, output_tokens: 50, cache_creation_input_tokens: 7, cache_read_input_tokens: 3 } }),
  ]);
}

/** `add` also reports the token from its env: the run must mask it wherever it shows. */
const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  input: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }, context) => `${a + b} (token ${context.env['API_TOKEN'] ?? 'none'})`,
});

export function reviewer(model: ScriptedModel, extra: Partial<AgentConfig> = {}) {
  return createAgent({ name: 'reviewer', model: MODEL, client: model.client(), tools: [add], env: { API_TOKEN: SECRET }, ...extra });
}

/**
 * release → step prepare, task reviews → (workflow review → step check → the agent call with
 * two turns and a tool call; workflow notes → step write). Times from a fake clock.
 */
export function releaseRun(agent: ReturnType<typeof reviewer>, options: { failNotes?: boolean } = {}) {
  const clock = new FakeClock({ tick: 1 });
  class Review extends Workflow {
    @Step() async check(): Promise<string> {
      return (await agent.prompt(createPrompt({ name: 'add', user: 'Add 2 and 3.', responseFormat: Answer }))).answer;
    }
    override async run(): Promise<string> {
      return this.check();
    }
  }
  class Notes extends Workflow {
    @Step() async write(): Promise<void> {
      // After the agent call: the run knows the env secret by now and masks it in the error.
      if (options.failNotes === true) throw new Error(`upload refused for token ${SECRET}`);
    }
    override async run(): Promise<void> {
      await this.write();
    }
  }
  class Release extends Workflow {
    @Step() async prepare(): Promise<void> {
      clock.advance(5);
    }
    @Task() async reviews(): Promise<Workflow[]> {
      return [new Review('review', this), new Notes('notes', this)];
    }
    override async run(): Promise<void> {
      await this.prepare();
      await this.reviews();
    }
  }
  return { workflow: new Release({ name: 'release', clock }), clock };
}

export const PLAN = `# Ship the report

## Goals

1. [/] goal: the report lists every team
  - subtle failure mode: teams with no activity are dropped
  - discriminator: report.md has one row per team
  - evidence:
    - report.md: "| alpha | 3 |" and "| beta | 0 |"

## Log
`;

/** A worker that signs a goal off through `CompleteGoal` (the judge accepts), with checkpoints on. */
export function signOffAgent() {
  const root = mkdtempSync(join(tmpdir(), 'gs-otel-plan-'));
  writeFileSync(join(root, 'PLAN.md'), PLAN);
  writeFileSync(join(root, 'report.md'), '| alpha | 3 |\n| beta | 0 |\n');
  const judge = new ScriptedModel([json({ review: 'Checked report.md.\nVERDICT: accept\nmissing: ' })]);
  const worker = new ScriptedModel([toolUse('CompleteGoal', { goal: 'the report lists every team' }), json({ done: true })]);
  const agent = createAgent({
    name: 'worker',
    model: MODEL,
    client: worker.client(),
    trajectory: { checkpoint: 'always' },
    tools: [completeGoalTool({ planPath: join(root, 'PLAN.md'), root, judge: { client: judge.client() } })],
  });
  return { agent, worker, judge };
}
