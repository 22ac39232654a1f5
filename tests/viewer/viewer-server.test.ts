import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createWorkflow, exportRun } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { serveViewer, ViewerError, type NodeDetails, type NodeRow, type Viewer } from 'groundswell/viewer';
import { runCli } from '../../src/cli/run-cli.js';
import { isAllowedHost } from '../../src/viewer/loopback-host.js';
import { deferred } from '../support/deferred.js';
import { get, openEvents, rowsOf } from './http-get.js';
import { GITHUB_TOKEN, releaseRun } from './release-run.js';

let viewer: Viewer | undefined;
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-viewer-'));
});
afterEach(async () => {
  await viewer?.close();
  viewer = undefined;
  rmSync(dir, { recursive: true, force: true });
});

function capture(): { io: { out(text: string): void; err(text: string): void }; out: string[]; err: string[]; printed: Promise<string> } {
  const out: string[] = [];
  const err: string[] = [];
  const first = deferred<string>();
  return { out, err, printed: first.promise, io: { out: (t) => (out.push(t), first.resolve(t)), err: (t) => void err.push(t) } };
}

describe('viewer server', () => {
  it('answers only requests addressed to a loopback host (DNS rebinding) and sends no CORS headers', async () => {
    viewer = await serveViewer();
    const { port } = new URL(viewer.url);
    expect(new URL(viewer.url).hostname).toBe('127.0.0.1');
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'localhost']) {
      expect((await get(viewer.url, { host })).status).toBe(200);
    }
    for (const host of [`evil.example:${port}`, `127.0.0.1.nip.io:${port}`]) {
      const answer = await get(new URL('/api/tree', viewer.url).href, { host });
      expect(answer.status).toBe(403);
      expect(answer.body).not.toContain('rootId');
    }
    // HTTP/1.0 without a Host header at all.
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => socket.end('GET /api/tree HTTP/1.0\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    expect(raw).toMatch(/^HTTP\/1\.1 403 /);
    const page = await get(viewer.url, { origin: 'http://evil.example' });
    expect(Object.keys(page.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(page.headers['content-security-policy']).toMatch(/script-src 'nonce-[^']+'/);
    expect((await get(viewer.url, {}, 'POST')).status).toBe(405);
    expect((await get(new URL('/api/node/%E0%A4%A', viewer.url).href)).status).toBe(400);
    expect((await get(new URL('/api/node/nope', viewer.url).href)).status).toBe(404);
  });

  it('answers 405 to a request with a body on a kept-alive connection, which then serves the next request', async () => {
    viewer = await serveViewer();
    // One socket for both: the 405 must not leave the POST's body unread (that resets the connection).
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body?: string): Promise<{ status: number; socket: unknown }> =>
      new Promise((resolve, reject) => {
        const headers = body === undefined ? {} : { 'content-type': 'text/plain', 'content-length': String(body.length) };
        const req = request(new URL(path, viewer?.url), { method, agent, headers }, (res) => {
          res.resume();
          res.on('end', () => resolve({ status: res.statusCode ?? 0, socket: req.socket }));
        });
        req.on('error', reject);
        req.end(body);
      });
    try {
      // A body longer than a signal may be (64 KB) is still discarded whole on a path that answers 405.
      for (const [path, size] of [['/', 1_000_000], ['/api/tree', 40_000], ['/api/signal', 40_000]] as const) {
        const refused = await send('POST', path, 'x'.repeat(size));
        const next = await send('GET', '/api/tree');
        expect([path, refused.status]).toEqual([path, path === '/api/signal' ? 403 : 405]);
        expect(next.status).toBe(200);
        expect(next.socket).toBe(refused.socket);
      }
    } finally {
      agent.destroy();
    }
  });

  it('checks Host headers: loopback names always, others only when bound elsewhere on purpose', () => {
    expect(isAllowedHost('[::1]:8080', '127.0.0.1')).toBe(true);
    expect(isAllowedHost('127.0.0.2', '127.0.0.1')).toBe(true);
    expect(isAllowedHost('app.localhost:1', '127.0.0.1')).toBe(true);
    expect(isAllowedHost('localhost.evil.example', '127.0.0.1')).toBe(false);
    expect(isAllowedHost('192.168.1.5:80', '127.0.0.1')).toBe(false);
    expect(isAllowedHost('192.168.1.5:80', '0.0.0.0')).toBe(true);
    expect(isAllowedHost('evil.example', '0.0.0.0')).toBe(false);
    expect(isAllowedHost(undefined, '127.0.0.1')).toBe(false);
  });

  it('streams a snapshot then batches, survives a client that disconnects, and close() ends the streams', async () => {
    viewer = await serveViewer({ batchMs: 20 });
    const gate = deferred<void>();
    const wf = createWorkflow({ name: 'live' }, async (ctx) => {
      await ctx.step('first', () => 1);
      await gate.promise;
      await ctx.step('second', () => 2);
    });
    viewer.attach(wf);
    const gone = await openEvents(viewer.url);
    const stays = await openEvents(viewer.url);
    const snapshot = await stays.next((m) => m.event === 'snapshot');
    expect(rowsOf(snapshot, 'rows').map((r) => r.name)).toEqual(['live']);
    gone.drop();
    await gone.ended;
    const running = wf.run();
    await stays.next((m) => m.event === 'nodes' && rowsOf(m, 'upserted').some((r) => r.name === 'first' && r.status === 'completed'));
    gate.resolve();
    await running;
    const last = await stays.next((m) => m.event === 'nodes' && rowsOf(m, 'upserted').some((r) => r.name === 'live' && r.status === 'completed'));
    expect((last.data as { mode: string }).mode).toBe('live');
    const tree = JSON.parse((await get(new URL('/api/tree', viewer.url).href)).body) as { rows: NodeRow[] };
    expect(tree.rows.map((r) => `${r.name}:${r.status}`)).toEqual(['live:completed', 'first:completed', 'second:completed']);
    const closing = viewer.close();
    await stays.ended;
    await closing;
    viewer = undefined;
  });

  it('gives one node on demand: why line, answer, tools, checkpoint and sign-off, with secrets masked', async () => {
    viewer = await serveViewer();
    const { workflow, gathered } = releaseRun();
    viewer.attach(workflow);
    gathered.resolve();
    await workflow.run();
    const rows = (JSON.parse((await get(new URL('/api/tree', viewer.url).href)).body) as { rows: NodeRow[] }).rows;
    const detailsOf = async (name: string): Promise<NodeDetails> => {
      const row = rows.find((r) => r.name === name);
      return JSON.parse((await get(new URL(`/api/node/${encodeURIComponent(row?.id ?? '')}`, viewer?.url).href)).body) as NodeDetails;
    };
    const researcher = await detailsOf('researcher: What changed since v1.9.0?');
    expect(researcher.why).toBe('Mission: Ship reliable releases · Project: Sync 2.0 · Goal: Publish the 2.0 release notes');
    expect(JSON.parse(researcher.answer?.output ?? '')).toEqual(expect.objectContaining({ changes: 14 }));
    expect(researcher.tools.map((t) => t.toolName)).toEqual(['git_log', 'read_file']);
    const exported = exportRun(workflow.node);
    const checkpoints = JSON.stringify(exported).match(/"type":"trajectoryCheckpoint","agentName":"researcher","revision":(\d+),"assessment":"(\w+)"/g) ?? [];
    expect(checkpoints.at(-1)).toContain(`"revision":${researcher.checkpoint?.revision},"assessment":"${researcher.checkpoint?.assessment}"`);
    expect((await detailsOf('writer: Draft the 2.0 release notes')).signOffs.map((s) => `${s.verdict} ${s.goal}`)).toEqual(['accept the 2.0 release notes are drafted']);
    const root = await detailsOf('release-notes');
    expect(root.stateSnapshot).toEqual(expect.objectContaining({ githubToken: '***' }));
    const runExport = (await get(new URL('/api/run', viewer.url).href)).body;
    expect(runExport).toContain('"format":"groundswell.run"');
    expect(runExport).toContain('***');
    expect(runExport).not.toContain(GITHUB_TOKEN);
    expect(JSON.stringify(researcher) + JSON.stringify(root)).not.toContain(GITHUB_TOKEN);
  });

  it('refuses bad options and a taken port with clear errors', async () => {
    await expect(serveViewer({ port: 70000 })).rejects.toThrow(/options.port must be an integer from 0 to 65535/);
    viewer = await serveViewer();
    await expect(serveViewer({ port: Number(new URL(viewer.url).port) })).rejects.toThrow(ViewerError);
    expect(() => viewer?.show('{"format":"other"}')).toThrow(/cannot show this run: Not a groundswell run export/);
  });
});

describe('groundswell view', () => {
  it('prints its usage, and exits 2 without a run', async () => {
    const help = capture();
    expect(await runCli(['--help'], help.io)).toBe(0);
    expect(help.out.join('\n')).toContain('view <run.json>');
    const missing = capture();
    expect(await runCli(['view'], missing.io, Promise.resolve())).toBe(2);
    expect(missing.err.join('\n')).toMatch(/^Missing a run export file[\s\S]*Usage: groundswell/);
  });

  it('exits 1 with a clear message for a file that is missing or not a run export', async () => {
    const missing = capture();
    expect(await runCli(['view', join(dir, 'nope.json')], missing.io, Promise.resolve())).toBe(1);
    expect(missing.err.join('\n')).toMatch(/^Cannot read .*nope\.json: ENOENT/);
    writeFileSync(join(dir, 'bad.json'), '{"format":"groundswell.run","version":1,"root":{"id":1}}');
    const bad = capture();
    expect(await runCli(['view', join(dir, 'bad.json')], bad.io, Promise.resolve())).toBe(1);
    expect(bad.err.join('\n')).toBe(`${join(dir, 'bad.json')} is not a run export this viewer can show: Run export: root.id must be a string.`);
  });

  it('serves a run export file until stopped', async () => {
    const wf = createWorkflow({ name: 'saved' }, (ctx) => ctx.step('only', () => 'ok'));
    await wf.run();
    writeFileSync(join(dir, 'run.json'), JSON.stringify(exportRun(wf.node)));
    const cli = capture();
    const stop = deferred<void>();
    const code = runCli(['view', join(dir, 'run.json')], cli.io, stop.promise);
    const url = /(http:\/\/127\.0\.0\.1:\d+\/)/.exec(await cli.printed)?.[1] ?? '';
    const tree = JSON.parse((await get(new URL('/api/tree', url).href)).body) as { rows: NodeRow[] };
    expect(tree.rows.map((r) => r.name)).toEqual(['saved', 'only']);
    stop.resolve();
    expect(await code).toBe(0);
    await expect(get(url)).rejects.toThrow(/ECONNREFUSED/);
  });

  it('lists a store\'s runs without an id, and follows a running run as its tree is stored', async () => {
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'r1', rootName: 'Nightly' });
    const first = createWorkflow({ name: 'Nightly' }, (ctx) => ctx.step('fetch', () => 1));
    await first.run();
    await store.putTree('r1', exportRun(first.node));
    const listed = capture();
    expect(await runCli(['view', '--store', dir], listed.io, Promise.resolve())).toBe(0);
    expect(listed.out[0]).toMatch(/^r1 +running +Nightly /);

    const cli = capture();
    const stop = deferred<void>();
    const code = runCli(['view', 'r1', '--store', dir], cli.io, stop.promise);
    expect(await cli.printed).toMatch(/^Viewing run r1 at http:\/\/127\.0\.0\.1:\d+\/ .*it is running: the page follows it$/);
    const url = /(http:\/\/[^ ]+\/)/.exec(cli.out[0] ?? '')?.[1] ?? '';
    const events = await openEvents(url);
    await events.next((m) => m.event === 'snapshot');
    const second = createWorkflow({ name: 'Nightly' }, async (ctx) => {
      await ctx.step('fetch', () => 1);
      await ctx.step('report', () => 2);
    });
    await second.run();
    await store.putTree('r1', exportRun(second.node));
    const batch = await events.next((m) => m.event === 'nodes' && rowsOf(m, 'upserted').some((r) => r.name === 'report'));
    expect((batch.data as { mode: string }).mode).toBe('live');
    stop.resolve();
    expect(await code).toBe(0);
    await events.ended;
    await store.close();
  });
});
