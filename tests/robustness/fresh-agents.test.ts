import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, type Tool } from 'groundswell';
import { completeGoalTool, createPlanDrafter } from 'groundswell/plans';
import { json, malformedJson, ScriptedModel, toolUse, type RecordedRequest } from 'groundswell/testing';

// Names only the worker's run knows: none of them may reach an agent that must start fresh.
const WORKER_FILE = 'worker-only-parser.cpp';
const WORKER_GOAL = `Fix the frame parser in ${WORKER_FILE}`;
const SLICE_HEADING = '[PARENT TRAJECTORY';

const PLAN = `# Ship the parser

## Goals

1. [/] goal: the parser accepts every frame
  - subtle failure mode: short frames are silently dropped
  - discriminator: the test log shows all 12 frames parsed
  - evidence:
    - test.log: "12/12 frames parsed" (every frame, short ones included)

## Log
`;

const Done = z.object({ done: z.boolean() });

function project(): { root: string; planPath: string } {
  const root = mkdtempSync(join(tmpdir(), 'gs-fresh-'));
  writeFileSync(join(root, 'PLAN.md'), PLAN);
  writeFileSync(join(root, 'test.log'), '12/12 frames parsed\n');
  return { root, planPath: join(root, 'PLAN.md') };
}

/** The worker's file tool: declares its target, so the worker's checkpoint names the file. */
const readFile = defineTool({
  name: 'file_read',
  description: 'Read a file.',
  effect: 'read',
  target: (input) => input.path,
  input: z.object({ path: z.string() }),
  execute: ({ path }) => `contents of ${path}: int parse(frame f) { return f.len > 8; }`,
});

/** Everything a request carried, as text. */
function requestText(request: RecordedRequest | undefined): string {
  return JSON.stringify({ system: request?.body.system, messages: request?.body.messages });
}

/** Runs a worker (trajectory checkpoints on) that reads its file, then calls `tool`, then answers. */
async function workerCalling(tool: Tool, input: Record<string, unknown>): Promise<ScriptedModel> {
  const model = new ScriptedModel([toolUse('file_read', { path: WORKER_FILE }), toolUse(tool.name, input), json({ done: true })]);
  const worker = createAgent({ name: 'worker', client: model.client(), tools: [readFile, tool], trajectory: { checkpoint: 'always' } });
  const flow = createWorkflow({ name: 'work', goal: WORKER_GOAL }, (ctx) =>
    ctx.step('work', () => worker.prompt(createPrompt({ name: 'work', user: `Work on ${WORKER_FILE}`, responseFormat: Done }))),
  );
  await flow.run();
  model.assertComplete();
  // The worker's own checkpoint did name its file: a slice of it would carry the file name along.
  expect(requestText(model.requests[1])).toContain(`file_read on ${WORKER_FILE}`);
  return model;
}

describe('agents that must start fresh get nothing of the run they are called from', () => {
  it('the CompleteGoal judge: no parent slice, none of the worker’s file names or goal', async () => {
    const { root, planPath } = project();
    const judge = new ScriptedModel([json({ review: 'Read test.log.\nVERDICT: accept\nmissing:' })]);
    await workerCalling(completeGoalTool({ planPath, root, judge: { client: judge.client() } }), { goal: 'the parser accepts every frame' });
    judge.assertComplete();
    const seen = requestText(judge.requests[0]);
    expect(seen).toContain('the parser accepts every frame');
    expect(seen).not.toContain(SLICE_HEADING);
    expect(seen).not.toContain(WORKER_FILE);
    expect(seen).not.toContain('frame parser');
  });

  it('the plan drafter, called from a worker’s tool: no parent slice, none of the worker’s names', async () => {
    const { root, planPath } = project();
    const drafterModel = new ScriptedModel([json({ done: true })]);
    const drafter = createPlanDrafter({ root, planPath, client: drafterModel.client() });
    const draft = defineTool({
      name: 'draft_plan',
      description: 'Draft a plan.',
      input: z.object({ topic: z.string() }),
      execute: ({ topic }) => drafter.prompt(createPrompt({ name: 'draft', user: `Draft a plan for: ${topic}`, responseFormat: Done })),
    });
    await workerCalling(draft, { topic: 'release notes' });
    drafterModel.assertComplete();
    const seen = requestText(drafterModel.requests[0]);
    expect(seen).toContain('release notes');
    expect(seen).not.toContain(SLICE_HEADING);
    expect(seen).not.toContain(WORKER_FILE);
  });

  it('a reflection pass on the worker’s failed attempt: no parent slice in its system prompt', async () => {
    const model = new ScriptedModel([
      toolUse('file_read', { path: WORKER_FILE }),
      malformedJson(),
      json({ critique: 'The answer was not JSON.', revisedUser: null, guidance: 'Answer with the JSON object only.' }),
      json({ done: true }),
    ]);
    const worker = createAgent({ name: 'worker', client: model.client(), tools: [readFile], trajectory: { checkpoint: 'always' } });
    const flow = createWorkflow({ name: 'work', goal: WORKER_GOAL }, (ctx) =>
      ctx.step('work', () =>
        worker.prompt(createPrompt({ name: 'work', user: `Work on ${WORKER_FILE}`, responseFormat: Done, enableReflection: true })),
      ),
    );
    await flow.run();
    model.assertComplete();
    const reflection = model.requests[2];
    expect(JSON.stringify(reflection?.body.system)).toContain('You review an attempt that failed');
    // It is shown the failed task itself (that is its job), but no slice of the worker's trajectory.
    expect(JSON.stringify(reflection?.body.system)).not.toContain(SLICE_HEADING);
    expect(JSON.stringify(reflection?.body.system)).not.toContain(WORKER_FILE);
  });
});
