import { mkdtempSync, rmSync } from 'node:fs';
import { request, Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWorkflow, isSuspension, type RunExport } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { serveViewer, type Viewer, type ViewerWait } from 'groundswell/viewer';
import { runCli } from '../../src/cli/run-cli.js';
import { deferred } from '../support/deferred.js';
import { get, openEvents } from './http-get.js';
import { pageToken, post } from './signal-post.js';

// Answering a wait from the viewer (decision 0081): opt-in, token, same origin, JSON only, and
// sent as `groundswell runs signal` sends it.
let dir: string;
let store: JournalRunStore;
let viewer: Viewer | undefined;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gs-viewer-signal-'));
  store = new JournalRunStore({ dir, fsync: 'off' });
  const wf = createWorkflow({ name: 'Release', durable: { store, runId: 'rel' } }, async (ctx) => {
    await ctx.step('draft', () => 'notes');
    const decision = await ctx.step('approve', () => ctx.waitFor('approval', z.object({ approved: z.boolean(), note: z.string() })));
    return decision.approved ? 'shipped' : 'held';
  });
  expect(isSuspension(await wf.run().catch((error: unknown) => error))).toBe(true);
});
afterEach(async () => {
  await viewer?.close();
  viewer = undefined;
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

async function showRun(allowSignals: boolean | undefined): Promise<{ url: string; token: string | undefined; origin: string }> {
  viewer = await serveViewer(allowSignals === undefined ? {} : { allowSignals });
  const loaded = await store.loadRun('rel');
  viewer.show(loaded.tree as RunExport, { waitingFor: loaded.run.waitingFor as ViewerWait, signalTo: { store, runId: 'rel' } });
  const page = await get(viewer.url);
  return { url: new URL('/api/signal', viewer.url).href, token: pageToken(page.body), origin: viewer.url.replace(/\/$/, '') };
}

const good = JSON.stringify({ name: 'approval', value: { approved: true, note: 'ship it' } });

/** The signals stored for the run, read by a store that never saw them sent. */
async function storedSignals(): Promise<Array<{ name: string; value: unknown }>> {
  const fresh = new JournalRunStore({ dir, fsync: 'off' });
  try {
    return (await fresh.loadRun('rel')).signals.map(({ name, value }) => ({ name, value }));
  } finally {
    await fresh.close();
  }
}

describe('POST /api/signal', () => {
  it('stores the signal for a good request: token, own origin, JSON; a fresh store reads it back', async () => {
    const { url, token, origin } = await showRun(true);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const answer = await post(url, good, { 'content-type': 'application/json', 'x-groundswell-token': token ?? '', origin, 'sec-fetch-site': 'same-origin' });
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ message: 'Signal "approval" stored for run rel; resume it with: groundswell runs resume rel --workflows <module>' });
    expect(await storedSignals()).toEqual([{ name: 'approval', value: { approved: true, note: 'ship it' } }]);
    // A page opened now learns the wait was answered (the record says suspended until a resume).
    const events = await openEvents(url);
    try {
      const snapshot = await events.next((m) => m.event === 'snapshot');
      expect(snapshot.data).toMatchObject({ wait: { name: 'approval' }, signals: { open: true, answered: expect.stringMatching(/^Signal "approval" stored/) } });
    } finally {
      events.drop();
    }
  });

  it('refuses a request without the token, or with a wrong one, and stores nothing', async () => {
    const { url, token, origin } = await showRun(true);
    const missing = await post(url, good, { 'content-type': 'application/json', origin });
    expect(missing.status).toBe(403);
    expect(JSON.parse(missing.body).error).toMatch(/token/);
    const wrong = await post(url, good, { 'content-type': 'application/json', origin, 'x-groundswell-token': `${token ?? ''}x` });
    expect(wrong.status).toBe(403);
    expect(await storedSignals()).toEqual([]);
  });

  it('refuses another origin, another site, a Host that is not its own, and a body that is not JSON', async () => {
    const { url, token } = await showRun(true);
    const headers = { 'content-type': 'application/json', 'x-groundswell-token': token ?? '' };
    expect((await post(url, good, { ...headers, origin: 'http://evil.example' })).status).toBe(403);
    expect((await post(url, good, { ...headers, origin: 'null' })).status).toBe(403);
    expect((await post(url, good, { ...headers, 'sec-fetch-site': 'cross-site' })).status).toBe(403);
    expect((await post(url, good, { ...headers, host: 'evil.example' })).status).toBe(403);
    expect((await post(url, good, { ...headers, host: '127.0.0.1:1' })).status).toBe(403);
    expect((await post(url, good, { ...headers, 'content-type': 'text/plain' })).status).toBe(403);
    expect((await post(url, good, { ...headers, 'content-type': 'application/x-www-form-urlencoded' })).status).toBe(403);
    expect(await storedSignals()).toEqual([]);
  });

  it('refuses a name the run does not wait for, naming the one it waits for; and a value its schema refuses', async () => {
    const { url, token } = await showRun(true);
    const headers = { 'content-type': 'application/json', 'x-groundswell-token': token ?? '' };
    const misnamed = await post(url, JSON.stringify({ name: 'aproval', value: { approved: true, note: '' } }), headers);
    expect(misnamed.status).toBe(409);
    expect(JSON.parse(misnamed.body)).toEqual({
      error: 'Run rel waits for signal "approval", not "aproval"; nothing was stored. Did you mean "approval"?',
      waitingFor: 'approval',
    });
    const badValue = await post(url, JSON.stringify({ name: 'approval', value: { approved: 'yes' } }), headers);
    expect(badValue.status).toBe(422);
    expect(JSON.parse(badValue.body).error).toMatch(/approved/);
    const notJson = await post(url, '{"name":', headers);
    expect(notJson.status).toBe(400);
    expect(await storedSignals()).toEqual([]);
  });

  it('is off by default: no token in the page, and the endpoint refuses with nothing stored', async () => {
    const { url, origin } = await showRun(undefined);
    const page = await get(new URL('/', url).href);
    expect(pageToken(page.body)).toBeUndefined();
    expect(page.body).not.toContain('<meta name="groundswell-signal-token"');
    const answer = await post(url, good, { 'content-type': 'application/json', origin, 'x-groundswell-token': 'guess' });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body).error).toMatch(/--allow-signals/);
    expect(await storedSignals()).toEqual([]);
  });

  it('answers 413 past 64 KB, and reads any other request\u2019s body so a kept-alive connection goes on', async () => {
    const { url, token } = await showRun(true);
    const big = await post(url, Buffer.alloc(70 * 1024, 0x20), { 'content-type': 'application/json', 'x-groundswell-token': token ?? '' });
    expect(big.status).toBe(413);
    // One kept-alive socket: a POST with a body to the page (405), then a GET on the same socket.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const send = (method: string, path: string, body?: string): Promise<{ status: number; socket: unknown }> =>
        new Promise((resolve, reject) => {
          const req = request(new URL(path, url), { method, agent, headers: body === undefined ? {} : { 'content-type': 'text/plain', 'content-length': String(body.length) } }, (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
          });
          req.on('error', reject);
          req.end(body);
        });
      const first = await send('POST', '/', 'x'.repeat(20_000));
      const second = await send('GET', '/api/tree');
      expect(first.status).toBe(405);
      expect(second.status).toBe(200);
      expect(second.socket).toBe(first.socket);
    } finally {
      agent.destroy();
    }
  });

  it('will not allow signals on a host other machines can reach', async () => {
    await expect(serveViewer({ allowSignals: true, host: '0.0.0.0' })).rejects.toThrow(/loopback host/);
  });
});

describe('groundswell view --allow-signals', () => {
  it('serves a page with the token for a stored run, and refuses the flag for an export file', async () => {
    const stop = deferred<void>();
    const out: string[] = [];
    const printed = deferred<void>();
    const code = runCli(['view', 'rel', '--store', dir, '--allow-signals'], { out: (t) => (out.push(t), printed.resolve()), err: () => undefined }, stop.promise);
    try {
      await printed.promise;
      const url = /(http:\/\/[^ ]+\/)/.exec(out[0] ?? '')?.[1] ?? '';
      const token = pageToken((await get(url)).body);
      const answer = await post(new URL('/api/signal', url).href, good, { 'content-type': 'application/json', 'x-groundswell-token': token ?? '' });
      expect(answer.status).toBe(200);
      expect(await storedSignals()).toEqual([{ name: 'approval', value: { approved: true, note: 'ship it' } }]);
    } finally {
      stop.resolve();
      expect(await code).toBe(0);
    }
    const err: string[] = [];
    expect(await runCli(['view', 'run.json', '--allow-signals'], { out: () => undefined, err: (t) => err.push(t) })).toBe(2);
    expect(err.join('\n')).toMatch(/--allow-signals needs a stored run/);
    const help: string[] = [];
    await runCli(['--help'], { out: (t) => help.push(t), err: () => undefined });
    expect(help.join('\n')).toMatch(/--allow-signals/);
  });
});
