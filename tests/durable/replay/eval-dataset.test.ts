import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { evalDataset, formatDataset, JournalRunStore, writeRecording, type Recording, type RunNode } from 'groundswell/durable';
import { ScriptedModel } from 'groundswell/testing';
import { runCli } from '../../../src/cli/run-cli.js';
import { BASE, costOf, pipeline, record, tokensOf, type Reply } from './compare-fixture.js';

let dir: string;
let store: JournalRunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-eval-'));
  store = new JournalRunStore({ dir: join(dir, 'store'), fsync: 'off' });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

const CHANGED: Reply[] = [BASE[0] as Reply, { n: 5, input: 100, output: 40 }, { n: 2, input: 150, output: 30 }];
const CHECKED: Reply[] = [BASE[0] as Reply, BASE[1] as Reply, { n: 0, input: 10, output: 5 }, BASE[2] as Reply];

/** Three recordings: the base run, one with other answers and tokens, one with an added step. */
async function dataset(): Promise<Recording[]> {
  return [await record(store, 'r1', BASE), await record(store, 'r2', CHANGED), await record(store, 'r3', CHECKED, true)];
}

/** The current code (without the check step), on a model that refuses every request. */
const workflows = { Pipeline: (_input: unknown, { runId }: { runId: string }) => pipeline(store, runId, new ScriptedModel([])) };
/** 1 when the summary says 3, else 0. */
const scorers = { 'Pipeline › summarize': (node: RunNode) => ((node.answer as { n: number }).n === 3 ? 1 : 0) };

describe('evalDataset', () => {
  it('replays and scores every recording offline, one row each, with totals', async () => {
    const report = await evalDataset(await dataset(), { workflows, scorers });
    expect(report.rows.map((row) => [row.source, row.replay, row.tokens, row.score])).toEqual([
      ['run r1', 'same', tokensOf(BASE), 1],
      ['run r2', 'same', tokensOf(CHANGED), 0],
      ['run r3', 'diverged', tokensOf(CHECKED), 1],
    ]);
    expect([report.rows[2]?.divergence?.kind, report.rows[2]?.divergence?.path]).toEqual(['step-order', 'Pipeline › summarize']);
    expect(report.rows[0]?.costUsd).toBeCloseTo(costOf(BASE), 12);
    expect(report.totals).toMatchObject({ recordings: 3, same: 2, diverged: 1, errors: 0, tokens: tokensOf(BASE) + tokensOf(CHANGED) + tokensOf(CHECKED) });
    expect(report.totals.score).toBeCloseTo(2 / 3, 12);
    expect(report.totals.costUsd).toBeCloseTo(costOf(BASE) + costOf(CHANGED) + costOf(CHECKED), 12);
    const table = formatDataset(report);
    expect(table).toMatch(new RegExp(`run r2\\s+r2\\s+completed\\s+same\\s+${tokensOf(CHANGED)}\\s+\\$\\d\\.\\d{4}\\s+0\\.00`));
    expect(table).toMatch(/run r3\s+r3\s+completed\s+diverged at Pipeline › summarize/);
    expect(table).toMatch(/total \(3\)\s+2 same, 1 diverged\s+\d+\s+\$\d\.\d{4}\s+0\.67/);
  });

  it('only scores without workflows', async () => {
    const report = await evalDataset(await dataset(), { scorers });
    expect(report.rows.map((row) => row.replay)).toEqual(['not replayed', 'not replayed', 'not replayed']);
    expect(formatDataset(report)).toMatch(/total \(3\)\s+not replayed/);
  });
});

describe('groundswell diff, groundswell eval', () => {
  async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  /** The recordings as files in a folder of their own. */
  async function files(): Promise<string[]> {
    const folder = join(dir, 'recordings');
    mkdirSync(folder);
    const recordings = await dataset();
    return Promise.all(
      recordings.map(async (recording) => {
        const file = join(folder, `${recording.run.id}.json`);
        await writeRecording(file, recording);
        return file;
      }),
    );
  }

  function module(name: string, text: string): string {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  }

  it('diff prints the comparison table and exits 0 when the runs differ; 2 for a file that is not a recording', async () => {
    const [r1 = '', r2 = ''] = await files();
    const scorersFile = module('scorers.mjs', `export const scorers = { 'Pipeline › summarize': (node) => node.answer.n / 4 };\n`);
    const diff = await cli('diff', r1, r2, '--scorers', scorersFile);
    expect([diff.code, diff.err]).toEqual([0, '']);
    const fewer = Math.round(((tokensOf(BASE) - tokensOf(CHANGED)) / tokensOf(BASE)) * 100);
    expect(diff.out).toContain(`same outcome (completed), nodes: 5 changed, ${fewer}% fewer tokens, score 0.75 → 0.50`);
    expect(diff.out).toMatch(/Pipeline › summarize › counter\s+changed\s+completed\s+260 → 180/);
    expect(diff.out).toContain('answer of Pipeline › summarize, Pipeline › summarize › counter (- a, + b):\n    {\n  -   "n": 3\n  +   "n": 2\n    }');
    const json = await cli('diff', r1, r2, '--json');
    expect(JSON.parse(json.out).b.tokens).toBe(tokensOf(CHANGED));

    const notJson = module('bad.json', 'nope');
    const bad = await cli('diff', r1, notJson);
    expect([bad.code, bad.err]).toEqual([2, expect.stringMatching(/is not JSON/)]);
    expect((await cli('diff', r1)).code).toBe(2);
    expect((await cli('diff', r1, r2, '--scorers', module('none.mjs', 'export const scorers = { x: 1 };\n'))).code).toBe(2);
  });

  it('eval runs a folder as a dataset: exit 0 when scored only, 1 when a replay diverged', async () => {
    await files();
    const folder = join(dir, 'recordings');
    const scorersFile = module('scorers.mjs', `export default { 'Pipeline › summarize': (node) => (node.answer.n === 3 ? 1 : 0) };\n`);
    const scored = await cli('eval', folder, '--scorers', scorersFile);
    expect([scored.code, scored.err]).toEqual([0, '']);
    expect(scored.out).toMatch(/recordings\/r2\.json\s+r2\s+completed\s+not replayed\s+\d+\s+\$\d\.\d{4}\s+0\.00/);
    expect(scored.out).toMatch(/total \(3\)\s+not replayed\s+\d+\s+\$\d\.\d{4}\s+0\.67/);

    const workflowsFile = module(
      'workflows.mjs',
      `import { z } from 'zod';\nimport { createAgent, createPrompt, createWorkflow } from 'groundswell';\nimport { ScriptedModel } from 'groundswell/testing';\n` +
        `const agent = createAgent({ name: 'counter', client: new ScriptedModel([]).client(), model: 'claude-sonnet-5-5' });\n` +
        `const ask = (user) => agent.prompt(createPrompt({ user, responseFormat: z.object({ n: z.number() }) }));\n` +
        `export const workflows = { Pipeline: () => createWorkflow({ name: 'Pipeline' }, async (ctx) => {\n` +
        `  let total = (await ctx.step('ask', () => ask('count the apples'))).n;\n` +
        `  total += (await ctx.step('ask', () => ask('count the pears'))).n;\n` +
        `  return total + (await ctx.step('summarize', () => ask('summarize'))).n;\n}) };\n`,
    );
    const replayed = await cli('eval', join(folder, 'r1.json'), join(folder, 'r3.json'), '--workflows', workflowsFile);
    expect(replayed.code).toBe(1);
    expect(replayed.out).toMatch(/r1\.json\s+r1\s+completed\s+same/);
    expect(replayed.out).toMatch(/r3\.json\s+r3\s+completed\s+diverged at Pipeline › summarize/);
    expect(replayed.out).toMatch(/total \(2\)\s+1 same, 1 diverged/);
    const same = await cli('eval', join(folder, 'r1.json'), join(folder, 'r2.json'), '--workflows', workflowsFile);
    expect(same.code).toBe(0);
    expect((await cli('eval', join(dir, 'missing.json'))).code).toBe(2);
    expect((await cli('eval')).code).toBe(2);
  });
});
