import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, resume, RunFinishedError, type Workflow } from 'groundswell';
import { exportRecording, forkRun, JournalRunStore, MemoryRunStore, writeRecording } from 'groundswell/durable';
import { json, ScriptedModel } from 'groundswell/testing';
import { agentModelSync, nativeOnly } from '../../support/model-path.js';
import { runCli } from '../../../src/cli/run-cli.js';

const Answer = z.object({ n: z.number() });
const STEPS = 8;

let dir: string;
let store: JournalRunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-fork-'));
  store = new JournalRunStore({ dir, fsync: 'off' });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Eight steps, one agent call each; `suffix` changes the prompts from step `from` on (the changed code). */
function pipeline(model: ScriptedModel, runId: string, change: { from: number; suffix: string } = { from: STEPS, suffix: '' }): () => Workflow<number[]> {
  const agent = createAgent({ name: 'counter', ...agentModelSync(model) });
  return () =>
    createWorkflow({ name: 'Pipeline', durable: { store, runId } }, async (ctx) => {
      const answers: number[] = [];
      for (let i = 0; i < STEPS; i += 1) {
        const user = `item ${i}${i >= change.from ? change.suffix : ''}`;
        answers.push((await ctx.step(`s${i}`, () => agent.prompt(createPrompt({ user, responseFormat: Answer })))).n);
      }
      return answers;
    });
}

describe('forkRun', () => {
  it('serves the prefix from the recording and runs from the fork point live: exactly the calls after it; the recording is unchanged', async () => {
    const live = new ScriptedModel((request) => json({ n: Number(/item (\d+)/.exec(JSON.stringify(request.body.messages))?.[1] ?? -1) }));
    expect(await pipeline(live, 'r1')().run()).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const file = join(dir, 'r1.json');
    await writeRecording(file, await exportRecording(store, 'r1'));
    const before = readFileSync(file);

    const forked = new ScriptedModel(() => json({ n: 100 }));
    const fork = await forkRun(file, { at: 'Pipeline › s5', store, runId: 'f1', workflows: { Pipeline: pipeline(forked, 'f1', { from: 5, suffix: ' (v2)' }) } });
    expect(fork).toEqual({ runId: 'f1', result: [0, 1, 2, 3, 4, 100, 100, 100] });
    // Counted at the model: the three steps from the fork point on, with the changed prompts.
    expect(forked.requests.map((r) => JSON.stringify(r.body.messages).match(/item \d+( \(v2\))?/)?.[0])).toEqual(['item 5 (v2)', 'item 6 (v2)', 'item 7 (v2)']);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect((await exportRecording(store, 'r1')).run.status).toBe('completed');

    // A fork of the fork, into another store, at its key.
    const other = new MemoryRunStore();
    const again = new ScriptedModel(() => json({ n: 200 }));
    const second = await forkRun(await exportRecording(store, 'f1'), {
      at: '/Pipeline#0:s7#0',
      store: other,
      runId: 'f2',
      workflows: { Pipeline: () => pipeline(again, 'f2', { from: 5, suffix: ' (v2)' })() },
    });
    expect(second.result).toEqual([0, 1, 2, 3, 4, 100, 100, 200]);
    expect(again.requests).toHaveLength(1);
  });

  // The module's agent runs on the Anthropic client, as the recorded run's does on this path.
  nativeOnly('groundswell runs fork: a new run in the same store, live from the step', async () => {
    await pipeline(new ScriptedModel(() => json({ n: 1 })), 'r1')().run();
    const module = join(dir, 'workflows.mjs');
    writeFileSync(
      module,
      `import { z } from 'zod';\nimport { createAgent, createPrompt, createWorkflow } from 'groundswell';\nimport { json, ScriptedModel } from 'groundswell/testing';\n` +
        `export const model = new ScriptedModel(() => json({ n: 9 }));\nconst agent = createAgent({ name: 'counter', client: model.client() });\n` +
        `export const workflows = { Pipeline: () => createWorkflow({ name: 'Pipeline' }, async (ctx) => {\n  const answers = [];\n` +
        `  for (let i = 0; i < ${STEPS}; i += 1) answers.push((await ctx.step('s' + i, () => agent.prompt(createPrompt({ user: 'item ' + i, responseFormat: z.object({ n: z.number() }) })))).n);\n  return answers;\n}) };\n`,
    );
    const out: string[] = [];
    const code = await runCli(['runs', 'fork', 'r1', '--store', dir, '--at', 'Pipeline › s6', '--workflows', module], { out: (t) => out.push(t), err: (t) => out.push(t) });
    expect([code, out.join('\n')]).toEqual([0, expect.stringMatching(/^Forked run r1 at Pipeline › s6 into run r1-fork-\w+, which completed: \[1,1,1,1,1,1,9,9\]$/)]);
  });

  it('a fork whose copy is cut off (a refused write, as a kill would leave it) is never resumed: no step of its prefix runs live', async () => {
    await pipeline(new ScriptedModel(() => json({ n: 1 })), 'r1')().run();
    const recording = await exportRecording(store, 'r1');
    const target = new MemoryRunStore();
    let puts = 0;
    // The store gives out after three step records: the rest of the prefix never arrives.
    const failing = new Proxy(target, {
      get(inner, name) {
        const value: unknown = Reflect.get(inner, name, inner);
        if (name === 'putStep') return async (...args: Parameters<MemoryRunStore['putStep']>) => (++puts > 3 ? Promise.reject(new Error('disk full')) : inner.putStep(...args));
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(inner) : value;
      },
    });
    const live = new ScriptedModel(() => json({ n: 9 }));
    await expect(forkRun(recording, { at: 'Pipeline › s6', store: failing, runId: 'cut', workflows: { Pipeline: pipeline(live, 'cut') } })).rejects.toThrow(/disk full/);
    expect((await target.getRun('cut'))?.status).toBe('failed');
    await expect(resume('cut', { store: target, workflows: { Pipeline: pipeline(live, 'cut') } })).rejects.toBeInstanceOf(RunFinishedError);
    expect(live.requests).toHaveLength(0);
  });

  it('names the steps it has when the fork point is unknown', async () => {
    const live = new ScriptedModel(() => json({ n: 1 }));
    await pipeline(live, 'r1')().run();
    await expect(forkRun(await exportRecording(store, 'r1'), { at: 'Pipeline › s9', store, workflows: {} })).rejects.toThrow(
      /the recording has no step "Pipeline › s9" \(its steps include "Pipeline › s0", "Pipeline › s1"/,
    );
  });
});
