import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, ObservedState, Step, Task, Workflow } from 'groundswell';
import { completeGoalTool } from 'groundswell/plans';
import { ScriptedModel, json, requestData, toolUse } from 'groundswell/testing';
import { deferred } from '../support/deferred.js';

/** The secret the run's masker must hide everywhere the viewer shows it. */
export const GITHUB_TOKEN = 'ghp_release_T0ken_4242';

/**
 * A realistic scripted run for the viewer tests and the README screenshot: a release-notes
 * workflow with goal ancestry, a researcher agent using tools under trajectory checkpoints, a
 * writer whose CompleteGoal is signed off by a judge, and three concurrent reviewers. `gathered`
 * holds the run after its first step, so a test sees it live and half done.
 */
export function releaseRun(): { workflow: ReleaseNotes; gathered: ReturnType<typeof deferred<void>> } {
  const gathered = deferred<void>();
  const root = mkdtempSync(join(tmpdir(), 'gs-viewer-plan-'));
  const planPath = join(root, 'PLAN.md');
  writeFileSync(join(root, 'NOTES.md'), '# Sync 2.0\n14 changes, 3 highlights\n');
  writeFileSync(planPath, [
    '# Release 2.0', '', '## Goals', '',
    '1. [/] goal: the 2.0 release notes are drafted',
    '  - discriminator: NOTES.md lists the highlights',
    '  - evidence:',
    '    - NOTES.md: "14 changes, 3 highlights" (written by the writer agent)',
    '', '## Log', '',
  ].join('\n'));

  const SONNET = { 'claude-sonnet-5-5': { inputPerMTok: 3, outputPerMTok: 15 } };
  const gitLog = defineTool({
    name: 'git_log',
    description: 'Merged pull requests since a tag',
    effect: 'read',
    target: (input) => `git log ${input.since}..HEAD`,
    input: z.object({ since: z.string() }),
    execute: ({ since }) => ({
      remote: `https://x-access-token:${GITHUB_TOKEN}@github.com/acme/sync.git`,
      since,
      merged: ['#812 delta sync for large folders', '#820 resumable uploads', '#833 fix: conflict copies on rename'],
    }),
  });
  const readFile = defineTool({
    name: 'read_file',
    description: 'Read a file of the repository',
    effect: 'read',
    target: (input) => input.path,
    input: z.object({ path: z.string() }),
    execute: ({ path }) => (path === 'CHANGELOG.md' ? '## 2.0.0\n- delta sync\n- resumable uploads\n- 12 smaller fixes' : new Error('no such file')),
  });
  const researcherModel = new ScriptedModel([
    toolUse('git_log', { since: 'v1.9.0' }, { usage: { input_tokens: 1_240, output_tokens: 64 } }),
    toolUse('read_file', { path: 'CHANGELOG.md' }, { usage: { input_tokens: 1_710, output_tokens: 58 } }),
    json({ changes: 14, highlights: ['Delta sync for large folders', 'Resumable uploads', 'No more conflict copies on rename'] }, { usage: { input_tokens: 2_130, output_tokens: 176 } }),
  ]);
  const researcher = createAgent({
    name: 'researcher',
    system: 'You collect what changed in a release.',
    client: researcherModel.client(),
    tools: [gitLog, readFile],
    trajectory: { checkpoint: 'always' },
    pricing: SONNET,
  });
  const judgeModel = new ScriptedModel([json({ review: 'Opened NOTES.md; it lists the highlights.\nVERDICT: accept\nmissing:' })]);
  const writerModel = new ScriptedModel([
    toolUse('CompleteGoal', { goal: 'the 2.0 release notes are drafted' }, { usage: { input_tokens: 2_480, output_tokens: 610 } }),
    json({ title: 'Sync 2.0: faster, resumable, fewer conflicts', words: 412 }, { usage: { input_tokens: 3_190, output_tokens: 95 } }),
  ]);
  const writer = createAgent({
    name: 'writer',
    system: 'You write release notes.',
    client: writerModel.client(),
    tools: [completeGoalTool({ planPath, root, judge: { client: judgeModel.client() } })],
    pricing: SONNET,
  });
  const reviewerModel = new ScriptedModel((request) => json({ aspect: String(requestData(request).aspect), ok: true, note: 'reads well' }, { usage: { input_tokens: 920, output_tokens: 41 } }));
  const reviewer = createAgent({ name: 'reviewer', system: 'You review release notes.', client: reviewerModel.client(), pricing: SONNET });

  const Highlights = z.object({ changes: z.number(), highlights: z.array(z.string()) });
  const Draft = z.object({ title: z.string(), words: z.number() });
  const Review = z.object({ aspect: z.string(), ok: z.boolean(), note: z.string() });

  class ReleaseNotes extends Workflow<string> {
    @ObservedState() stage = 'planning';
    @ObservedState() changes = 0;
    @ObservedState({ redact: true }) githubToken = GITHUB_TOKEN;

    @Step({ snapshotState: true }) async gather(): Promise<z.infer<typeof Highlights>> {
      this.logger.info('collecting merged pull requests since v1.9.0');
      const found = await researcher.prompt(createPrompt({ user: 'What changed since v1.9.0?', responseFormat: Highlights }));
      this.changes = found.changes;
      this.stage = 'gathered';
      this.logger.info(`found ${found.changes} changes with token ${this.githubToken}`);
      await gathered.promise;
      return found;
    }

    @Step({ snapshotState: true }) async draft(): Promise<z.infer<typeof Draft>> {
      const draft = await writer.prompt(createPrompt({ user: 'Draft the 2.0 release notes', responseFormat: Draft }));
      this.stage = 'drafted';
      return draft;
    }

    @Task({ concurrent: true }) async review(): Promise<Array<Workflow<unknown>>> {
      return ['accuracy', 'tone', 'links'].map((aspect) =>
        createWorkflow({ name: `review ${aspect}` }, (ctx) =>
          ctx.step('check', () => reviewer.prompt(createPrompt({ user: 'Review the draft', data: { aspect }, responseFormat: Review }))),
        ),
      );
    }

    override async run(): Promise<string> {
      await this.gather();
      const draft = await this.draft();
      await this.review();
      this.stage = 'published';
      return draft.title;
    }
  }

  const workflow = new ReleaseNotes({ name: 'release-notes', mission: 'Ship reliable releases', project: 'Sync 2.0', goal: 'Publish the 2.0 release notes' });
  return { workflow, gathered };
}
export type ReleaseNotes = Workflow<string>;
