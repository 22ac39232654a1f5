/**
 * Example 14: durable runs that survive a crash and wait for a human.
 *
 * - a pipeline of six steps, three of them agent calls, with `durable: { store }` on the root:
 *   every settled step and completed agent call is written to a journal store in a temp folder
 * - part 1: the pipeline runs in a child process that is killed with SIGKILL in step 4 (a real
 *   crash: no cleanup runs); the store still says `running`; `resume(runId)` here runs the code again,
 *   serves steps 1-3 and their agent calls from the store (marked `replayed` in the tree) and
 *   finishes: the model answers only the calls that had not completed
 * - part 2: an approval workflow (a class with `@Step`s) calls `this.waitFor('approval', schema)`;
 *   the run is stored as `suspended` and `run()` rejects with `RunSuspendedError`; a bad value sent
 *   with `signal()` is refused (`SignalValueError`, nothing stored); a good one resumes the run
 * - the resumed run is watched with `progressDisplay()` (live in a terminal, plain lines in a log)
 * - `store.listRuns()` shows both runs with status, tokens and cost (`npx groundswell runs list`
 *   prints the same from the command line)
 *
 * Offline (a scripted model; the child process gets its own). Run: npx tsx examples/14-durable-runs.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  isSuspension,
  resume,
  signal,
  SignalValueError,
  Step,
  Workflow,
  WorkflowTreeDebugger,
  type WorkflowContext,
} from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { json, ScriptedModel } from 'groundswell/testing';
import { exampleProgress } from './support/progress.js';

const RUN_ID = 'report-2026-11-30';
const Summary = z.object({ summary: z.string(), words: z.number() });

// ---- the pipeline: the same code in the child that crashes and in the process that resumes --------

function buildPipeline(store: JournalRunStore, model: ScriptedModel, crashInStep?: number): Workflow<string> {
  const writer = createAgent({ name: 'writer', client: model.client(), pricing: { 'claude-sonnet-5-5': { inputPerMTok: 3, outputPerMTok: 15 } } });
  return createWorkflow({ name: 'WeeklyReport', durable: { store, runId: RUN_ID } }, async (ctx: WorkflowContext) => {
    const parts: string[] = [];
    for (const [i, team] of ['infra', 'web', 'data'].entries()) {
      const rows = await ctx.step(`collect ${team}`, () => ({ team, commits: 10 * (i + 1) }));
      if (crashInStep === i + 1 && i === 1) process.kill(process.pid, 'SIGKILL');
      const summary = await ctx.step(`summarise ${team}`, () =>
        writer.prompt(createPrompt({ user: `Summarise the week of team ${team}.`, data: rows, responseFormat: Summary })),
      );
      parts.push(summary.summary);
    }
    return parts.join(' ');
  });
}

function scriptedWriter(): ScriptedModel {
  return new ScriptedModel((request) => {
    const team = /team (\w+)/.exec(JSON.stringify(request.body))?.[1] ?? '?';
    return json({ summary: `${team}: a steady week.`, words: 3 });
  });
}

// In the child process: run until the crash, then die without any cleanup.
if (process.argv[2] === '--crash-child') {
  const store = new JournalRunStore({ dir: process.argv[3] ?? '' });
  await buildPipeline(store, scriptedWriter(), 2).run();
  process.exit(0);
}

const dir = mkdtempSync(join(tmpdir(), 'gs-example-14-'));
const store = new JournalRunStore({ dir });
try {
  // ---- part 1: a crash and a resume ----------------------------------------------------------------
  console.log('Part 1: a run killed in the middle, then resumed');
  const child = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--crash-child', dir], { encoding: 'utf8' });
  console.log(`  child process ended by ${child.signal ?? `exit code ${child.status}`}${child.stderr ? `: ${child.stderr.trim()}` : ''}`);
  const crashed = await store.loadRun(RUN_ID);
  console.log(`  stored: status ${crashed.run.status}, ${crashed.steps.length} settled steps, ${crashed.calls.length} completed agent calls`);

  const model = scriptedWriter();
  // The resumed run with a live progress display (steps, agent calls, tokens, cost, elapsed time).
  const withProgress = (workflow: Workflow<string>): Workflow<string> => {
    workflow.addObserver(exampleProgress(import.meta.url));
    return workflow;
  };
  const report = await resume<string>(RUN_ID, { store, workflows: { WeeklyReport: () => withProgress(buildPipeline(store, model)) } });
  console.log(`  resumed: "${report}"`);
  console.log(`  model requests after the crash: ${model.requests.length} (only the call that had not completed)`);
  const tree = (await store.loadRun(RUN_ID)).tree;
  if (tree !== undefined) console.log(new WorkflowTreeDebugger(tree as never).toTreeString());

  // ---- part 2: an approval that waits for a signal -------------------------------------------------
  console.log('\nPart 2: a run that waits for an approval');
  const Decision = z.object({ approved: z.boolean(), by: z.string().min(1) });
  class Publish extends Workflow<string> {
    constructor() {
      super({ name: 'Publish', durable: { store, runId: 'publish-1' } });
    }
    @Step()
    async draft(): Promise<string> {
      return 'Release notes v2';
    }
    @Step()
    async publish(text: string, by: string): Promise<string> {
      return `${text} (published, approved by ${by})`;
    }
    override async run(): Promise<string> {
      const text = await this.draft();
      const decision = await this.waitFor('approval', Decision, { timeout: 86_400_000 });
      return decision.approved ? this.publish(text, decision.by) : `${text} (not published)`;
    }
  }
  const stopped = await new Publish().run().catch((error: unknown) => error);
  if (isSuspension(stopped)) console.log(`  run() stopped: ${stopped.message}`);

  const refused = await signal('publish-1', 'approval', { approved: 'yes' }, { store }).catch((error: unknown) => error);
  if (refused instanceof SignalValueError) console.log(`  a bad signal is refused: ${refused.message}`);

  const published = await signal('publish-1', 'approval', { approved: true, by: 'ada' }, { store, workflows: { Publish: () => new Publish() } });
  console.log(`  after the signal: "${String(published)}"`);

  console.log('\nRuns in the store (npx groundswell runs list --store <dir> prints the same):');
  for (const run of await store.listRuns()) {
    const tokens = run.usage ? `${run.usage.inputTokens + run.usage.outputTokens} tokens` : 'no tokens';
    const cost = run.usage?.costUsd === undefined ? '' : `  $${run.usage.costUsd.toFixed(6)}`;
    console.log(`  ${run.id}  ${run.status}  ${run.rootName}  ${tokens}${cost}`);
  }
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
