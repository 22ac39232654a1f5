/**
 * Example 17: a recorded run as a regression test, a time machine and an eval.
 *
 * - `recordRun` runs a three-step research digest and keeps it as a recording (one JSON file)
 * - `replayRun` runs the code again with the network closed: the same code is "same", with no
 *   model request; a changed prompt is the first divergence, shown at its node with a diff
 * - `forkRun` starts a new run at the changed step: the steps before it are served from the
 *   recording (no model request), the rest runs live with the new prompt
 * - `compareRuns` puts the recording and the fork side by side, node by node (outcome, answer,
 *   tokens, cost), and a scorer attached by node path grades the digest in both
 *
 * Offline (scripted models). Run: npx tsx examples/17-replay-fork-compare.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, type Workflow } from 'groundswell';
import { compareRuns, exportRecording, formatComparison, formatDivergence, forkRun, MemoryRunStore, recordRun, replayRun } from 'groundswell/durable';
import { json, ScriptedModel } from 'groundswell/testing';
import { tokens } from './support/model.js';

const Text = z.object({ text: z.string() });
const pricing = { 'claude-sonnet-5-5': { inputPerMTok: 3, outputPerMTok: 15 } };

/** The digest pipeline: gather facts, outline, write. `style` is the prompt we change. */
function digest(model: ScriptedModel, style = 'a plain paragraph'): Workflow<string> {
  const writer = createAgent({ name: 'writer', client: model.client(), pricing });
  const ask = (user: string) => writer.prompt(createPrompt({ user, responseFormat: Text }));
  return createWorkflow({ name: 'Digest' }, async (ctx) => {
    const facts = await ctx.step('gather', () => ask('Three facts about ocean tides.'));
    const outline = await ctx.step('outline', () => ask(`Outline a digest of: ${facts.text}`));
    const body = await ctx.step('write', () => ask(`Write the digest as ${style}, following: ${outline.text}`));
    return body.text;
  });
}

const dir = mkdtempSync(join(tmpdir(), 'gs-example-17-'));
try {
  // 1. Record a run (in staging, say): every step and call goes into one file.
  const live = new ScriptedModel([
    json({ text: 'Moon pulls water; the Sun adds; two highs a day.' }, tokens(120, 30)),
    json({ text: '1. Causes 2. Rhythm' }, tokens(140, 12)),
    json({ text: 'Tides rise twice a day as the Moon, helped by the Sun, pulls the sea.' }, tokens(200, 40)),
  ]);
  const file = join(dir, 'digest.recording.json');
  const { recording } = await recordRun(digest(live), { file, runId: 'digest-1' });
  console.log(`Recorded ${recording.steps.length} steps and ${recording.calls.length} agent calls to ${file}\n`);

  // 2. Replay it in CI: no network (this model has no answers at all).
  const closed = new ScriptedModel([]);
  const same = await replayRun(file, { workflows: { Digest: () => digest(closed) } });
  console.log('Replay of the unchanged code:', same.same ? 'same' : 'diverged');

  // 3. Change a prompt: the replay stops at the first divergence, with a diff.
  const changed = await replayRun(file, { workflows: { Digest: () => digest(closed, 'three short bullet points') } });
  if (!changed.same) console.log(`\n${formatDivergence(changed.divergence)}\n`);
  console.log(`Model requests during both replays: ${closed.requests.length}\n`);

  // 4. Fork at the changed step: gather and outline come from the recording, write runs live.
  const store = new MemoryRunStore();
  const fresh = new ScriptedModel([json({ text: '- Moon pulls\n- Sun helps\n- Twice a day' }, tokens(180, 20))]);
  const fork = await forkRun(file, { at: 'Digest › write', store, runId: 'digest-1-bullets', workflows: { Digest: () => digest(fresh, 'three short bullet points') } });
  console.log(`Fork ${fork.runId} made ${fresh.requests.length} model request and wrote:\n${String(fork.result)}\n`);

  // 5. Compare the two runs, and grade the digest in both: a scorer attached by node path.
  const brevity = (node: { answer?: unknown }): number => {
    const text = (node.answer as { text?: string } | undefined)?.text ?? '';
    return text.length <= 60 ? 1 : 0.5;
  };
  const comparison = await compareRuns(recording, await exportRecording(store, fork.runId), { scorers: { 'Digest › write › writer': brevity } });
  console.log(formatComparison(comparison));
  await store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
