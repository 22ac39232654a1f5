import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { compareRuns, JournalRunStore, writeRecording, type Recording } from 'groundswell/durable';
import { serveViewer, type Viewer } from 'groundswell/viewer';
import { runCli } from '../../src/cli/run-cli.js';
import type { SnapshotMessage } from '../../src/viewer/stream-messages.js';
import { deferred } from '../support/deferred.js';
import { openEvents } from './http-get.js';
import { recordPair } from './compare-pair.js';

// Two runs side by side in the viewer (issue 42, item 4): the snapshot carries the comparison's
// rows, each with both runs' nodes and its change.
let dir: string;
let store: JournalRunStore;
let viewer: Viewer | undefined;
let a: Recording;
let b: Recording;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gs-viewer-compare-'));
  store = new JournalRunStore({ dir: join(dir, 'runs'), fsync: 'off' });
  ({ a, b } = await recordPair(store));
});
afterEach(async () => {
  await viewer?.close();
  viewer = undefined;
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

function expectPairRows(snapshot: SnapshotMessage, summary: string): void {
  expect(snapshot.mode).toBe('compare');
  expect(snapshot.rows).toEqual([]);
  const view = snapshot.comparison;
  expect(view?.summary).toBe(summary);
  expect(view?.rows.map((r) => [r.path, r.change])).toEqual([
    ['Pipeline', 'changed'],
    ['Pipeline › ask', 'same'],
    ['Pipeline › ask › counter', 'same'],
    ['Pipeline › ask#1', 'changed'],
    ['Pipeline › ask#1 › counter', 'changed'],
    ['Pipeline › check', 'added'],
    ['Pipeline › check › counter', 'added'],
    ['Pipeline › summarize', 'same'],
    ['Pipeline › summarize › counter', 'same'],
  ]);
  const changed = view?.rows.find((r) => r.path === 'Pipeline › ask#1 › counter');
  expect(changed).toMatchObject({ label: 'counter', depth: 2, kind: 'agentPrompt', answerChanged: true, tokensDelta: 20 });
  expect(changed?.a).toMatchObject({ status: 'completed', tokens: 120 });
  expect(changed?.b).toMatchObject({ status: 'completed', tokens: 140 });
  expect(changed?.answerDiff).toContain('-   "n": 2\n+   "n": 5');
  const added = view?.rows.find((r) => r.path === 'Pipeline › check');
  expect(added).toMatchObject({ label: 'check', depth: 1, a: null, answerDiff: null });
  expect(added?.b?.status).toBe('completed');
  expect(view?.a).toMatchObject({ runId: 'a', rootName: 'Pipeline', status: 'completed', tokens: 500 });
  expect(view?.b).toMatchObject({ runId: 'b', tokens: 535 });
  expect(view?.counts).toEqual({ same: 4, changed: 3, added: 2, missing: 0 });
}

describe('viewer.compare', () => {
  it('serves both runs\u2019 rows with their change, the totals and the summary', async () => {
    viewer = await serveViewer();
    const comparison = await viewer.compare(a, b);
    expect(comparison).toEqual(await compareRuns(a, b));
    expectPairRows(await snapshotOf(viewer.url), comparison.summary);
  });

  it('switches an open page to the comparison and back to a run', async () => {
    viewer = await serveViewer();
    viewer.show(b.tree as string);
    const events = await openEvents(viewer.url);
    try {
      await events.next((m) => m.event === 'snapshot' && (m.data as SnapshotMessage).comparison === null);
      viewer.showComparison(await compareRuns(a, b));
      await events.next((m) => m.event === 'snapshot' && (m.data as SnapshotMessage).comparison !== null);
      viewer.show(a.tree as string);
      const back = (await events.next((m) => m.event === 'snapshot' && (m.data as SnapshotMessage).mode === 'stored')).data as SnapshotMessage;
      expect(back.comparison).toBeNull();
      expect(back.rows.length).toBeGreaterThan(0);
    } finally {
      events.drop();
    }
    expect(() => viewer?.showComparison({} as never)).toThrow(/expects what compareRuns returns/);
  });
});

describe('groundswell view --compare', () => {
  async function served(args: string[], check: (snapshot: SnapshotMessage, out: string[]) => void | Promise<void>): Promise<number> {
    const stop = deferred<void>();
    const out: string[] = [];
    const printed = deferred<void>();
    const code = runCli(args, { out: (t) => (out.push(t), printed.resolve()), err: (t) => out.push(t) }, stop.promise);
    await Promise.race([printed.promise, code]);
    try {
      const url = /(http:\/\/[^ ]+\/)/.exec(out[0] ?? '')?.[1];
      expect(url, out.join('\n')).toBeDefined();
      await check(await snapshotOf(url as string), out);
    } finally {
      stop.resolve();
    }
    return code;
  }

  it('serves two recording files side by side', async () => {
    const fa = join(dir, 'a.json');
    const fb = join(dir, 'b.json');
    await writeRecording(fa, a);
    await writeRecording(fb, b);
    const summary = (await compareRuns(a, b)).summary;
    const code = await served(['view', '--compare', fa, fb], (snapshot, out) => {
      expect(out[0]).toContain(`Comparing ${fa} and ${fb} at http://127.0.0.1:`);
      expect(out[1]).toBe(summary);
      expectPairRows(snapshot, summary);
    });
    expect(code).toBe(0);
  });

  it('exports both runs from a store', async () => {
    await store.close();
    const summary = (await compareRuns(a, b)).summary;
    const code = await served(['view', '--store', join(dir, 'runs'), '--compare', 'a', 'b'], (snapshot) => expectPairRows(snapshot, summary));
    expect(code).toBe(0);
  });

  it('says a bad file plainly, with exit 2', async () => {
    const fa = join(dir, 'a.json');
    await writeRecording(fa, a);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, '{"format":"something else"}');
    const err: string[] = [];
    const io = { out: () => undefined, err: (t: string) => err.push(t) };
    expect(await runCli(['view', '--compare', fa, bad], io, new Promise(() => undefined))).toBe(2);
    expect(err.join('\n')).toContain(bad);
    expect(err.join('\n')).not.toMatch(/\n\s+at /);
    err.length = 0;
    expect(await runCli(['view', '--compare', fa, join(dir, 'nope.json')], io, new Promise(() => undefined))).toBe(2);
    expect(err.join('\n')).toContain('Cannot read the recording');
    err.length = 0;
    expect(await runCli(['view', '--compare', fa], io, new Promise(() => undefined))).toBe(2);
    expect(err.join('\n')).toContain('view --compare takes two runs');
  });
});
