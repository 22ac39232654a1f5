import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkflow, type RunExport } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { serveViewer, type Viewer } from 'groundswell/viewer';
import { runCli } from '../../src/cli/run-cli.js';
import { storeFlag } from '../../src/cli/view-command.js';
import { readableStepKey } from '../../src/durable/replay/step-path.js';
import type { NodeRow } from '../../src/viewer/wire-row.js';
import { forkCommand, stepPath } from '../../src/viewer/page/fork-command.js';
import { nodes, upsert } from '../../src/viewer/page/tree-model.js';
import type { SnapshotMessage } from '../../src/viewer/stream-messages.js';
import { deferred } from '../support/deferred.js';
import { get, openEvents } from './http-get.js';

// The fork command a stored run's step shows (issue 42, item 3): the server names the stored run
// in its messages, and the page names the step as `runs fork --at` reads it.
let dir: string;
let store: JournalRunStore;
let viewer: Viewer | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gs-viewer-fork-'));
  store = new JournalRunStore({ dir, fsync: 'off' });
  // Same-named steps in a loop, and same-named child workflows with same-named steps.
  const child = (n: number) =>
    createWorkflow({ name: 'Child' }, async (ctx) => {
      await ctx.step('score', () => n);
      return ctx.step('score', () => n + 1);
    });
  const wf = createWorkflow({ name: 'Pipeline', durable: { store, runId: 'r1' } }, async (ctx) => {
    for (let i = 0; i < 2; i += 1) await ctx.step('s', () => i);
    await ctx.step('other', () => 'x');
    await ctx.spawnWorkflow(child(1));
    await ctx.step('nest', () => ctx.spawnWorkflow(child(2)));
    return 'done';
  });
  expect(await wf.run()).toBe('done');
});
afterEach(async () => {
  await viewer?.close();
  viewer = undefined;
  nodes.clear();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function snapshotOf(url: string): Promise<SnapshotMessage> {
  const events = await openEvents(url);
  try {
    return (await events.next((m) => m.event === 'snapshot')).data as SnapshotMessage;
  } finally {
    events.drop();
  }
}

/** Runs `groundswell view ...` until the test is done with it, and reads the page's first message. */
async function viewSnapshot(args: string[]): Promise<SnapshotMessage> {
  const stop = deferred<void>();
  const out: string[] = [];
  const printed = deferred<void>();
  const code = runCli(['view', ...args], { out: (t) => (out.push(t), printed.resolve()), err: (t) => out.push(t) }, stop.promise);
  try {
    await Promise.race([printed.promise, code]);
    const url = /(http:\/\/[^ ]+\/)/.exec(out[0] ?? '')?.[1];
    if (url === undefined) throw new Error(`no viewer url in ${out.join('\n')}`);
    return await snapshotOf(url);
  } finally {
    stop.resolve();
    expect(await code).toBe(0);
  }
}

describe('the stored run in the viewer\u2019s messages', () => {
  it('names the run and its store for a stored run (view --store), and nothing for an export file', async () => {
    const stored = await viewSnapshot(['r1', '--store', dir]);
    expect(stored.stored).toEqual({ runId: 'r1', storeFlag: `--store ${dir}` });

    const file = join(dir, 'r1.json');
    writeFileSync(file, JSON.stringify((await store.loadRun('r1')).tree));
    const fromFile = await viewSnapshot([file]);
    expect(fromFile.rows.length).toBeGreaterThan(0);
    expect(fromFile.stored).toBeNull();
  });

  it('serveViewer: a run shown with signalTo is named; a live workflow is not', async () => {
    viewer = await serveViewer();
    viewer.show((await store.loadRun('r1')).tree as RunExport, { signalTo: { store, runId: 'r1' } });
    expect((await snapshotOf(viewer.url)).stored).toEqual({ runId: 'r1', storeFlag: '--store <dir>' });
    viewer.attach(createWorkflow({ name: 'Live' }, async () => 1));
    expect((await snapshotOf(viewer.url)).stored).toBeNull();
  });

  it('storeFlag: as the viewer was opened, quoted for a shell; a PostgreSQL password is never shown', () => {
    expect(storeFlag({ store: './runs' })).toBe('--store ./runs');
    expect(storeFlag({ store: "my runs/it's" })).toBe("--store 'my runs/it'\\''s'");
    expect(storeFlag({ pg: 'postgres://app@db:5432/runs' })).toBe('--pg postgres://app@db:5432/runs');
    expect(storeFlag({ pg: 'postgres://app:s3cret@db:5432/runs', schema: 'gs' })).toBe('--pg <url> --schema gs');
    expect(storeFlag({ pg: 'postgres://app@db/runs?password=s3cret' })).toBe('--pg <url>');
    expect(storeFlag({ pg: 'not a url' })).toBe('--pg <url>');
  });
});

describe('the step path the page computes', () => {
  it('names every stored step as readableStepKey names its key', async () => {
    viewer = await serveViewer();
    viewer.show((await store.loadRun('r1')).tree as RunExport, { signalTo: { store, runId: 'r1' } });
    const tree = JSON.parse((await get(new URL('/api/tree', viewer.url).href)).body) as { rows: NodeRow[] };
    tree.rows.forEach(upsert);
    const pathsOnPage = [...nodes.values()].filter((n) => n.row.kind === 'step').map((n) => stepPath(n));
    const keys = (await store.loadRun('r1')).steps.map((step) => step.key);
    expect(new Set(pathsOnPage)).toEqual(new Set(keys.map(readableStepKey)));
    expect(pathsOnPage).toHaveLength(keys.length);
    // A child workflow started inside a step is still its workflow's child: no step in its path.
    expect(pathsOnPage).toEqual(expect.arrayContaining(['Pipeline › s', 'Pipeline › s#1', 'Pipeline › Child › score#1', 'Pipeline › Child#1 › score']));
  });

  it('quotes the path and the run id for a shell', () => {
    expect(forkCommand({ runId: 'r1', storeFlag: '--store ./runs' }, "Pipeline › it's")).toBe(
      "groundswell runs fork r1 --at 'Pipeline › it'\\''s' --store ./runs --workflows <module>",
    );
    expect(forkCommand({ runId: 'a b', storeFlag: '--pg <url>' }, 'P › s#1')).toBe("groundswell runs fork 'a b' --at 'P › s#1' --pg <url> --workflows <module>");
  });
});
