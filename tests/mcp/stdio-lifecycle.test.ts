import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, WorkflowCancelledError } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { connectMcp } from 'groundswell/mcp';
import { isAlive, processState } from './fixtures/echo-server-config.js';
import { readPids, slowStartServerConfig, type SlowStartPids } from './fixtures/slow-start-server-config.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'gs-mcp-lifecycle-'));
const seen: SlowStartPids[] = [];
let files = 0;

const nextTick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 20));

/** Waits for the server to have written its pids (it and its helper are running). */
async function startedPids(pidFile: string): Promise<SlowStartPids> {
  for (;;) {
    const pids = readPids(pidFile);
    if (pids !== undefined) {
      seen.push(pids);
      return pids;
    }
    await nextTick();
  }
}

/** How a process stands, for a failure's message. */
function describeProcess(pid: number): string {
  const state = processState(pid);
  if (state !== undefined) return `state ${state}`;
  return isAlive(pid) ? 'alive' : 'gone';
}

/** Waits until neither process is left; the test's timeout is the only bound. */
async function gone(pids: SlowStartPids): Promise<void> {
  while (isAlive(pids.server) || isAlive(pids.helper)) await nextTick();
}

afterAll(() => {
  // A failed test must not leave its processes behind: they are ours, killed by pid.
  for (const pids of seen) {
    for (const pid of [pids.server, pids.helper]) {
      if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    }
  }
  rmSync(dir, { recursive: true, force: true });
});

// Starting children dominates these tests, so they run concurrently; the timeout is for start-up
// on a loaded machine, not for any expected wait.
describe.concurrent('a stdio MCP server still starting', { timeout: 30_000 }, () => {
  it('is killed with its own children when the run is cancelled', async () => {
    const pidFile = join(dir, `run-${files++}.json`);
    const model = new ScriptedModel([json({ answer: 'never asked' })]);
    const agent = createAgent({ name: 'slow-mcp', client: model.client(), mcps: [slowStartServerConfig(pidFile)] });
    const wf = createWorkflow({ name: 'cancelled-while-starting' }, (ctx) =>
      ctx.step('ask', () => agent.prompt(createPrompt({ user: 'hi', responseFormat: z.object({ answer: z.string() }) }))),
    );
    const run = wf.run();
    const settled = run.then(
      () => undefined,
      (error: unknown) => error,
    );
    const pids = await startedPids(pidFile);
    expect(isAlive(pids.server) && isAlive(pids.helper)).toBe(true);
    wf.cancel('stop while the server starts');
    expect(await settled).toBeInstanceOf(WorkflowCancelledError);
    await gone(pids);
    expect(model.requests).toHaveLength(0);
  });

  it('is killed with its own children when connectMcp is aborted', async () => {
    const pidFile = join(dir, `abort-${files++}.json`);
    const controller = new AbortController();
    const reason = new Error('aborted while starting');
    const connecting = connectMcp(slowStartServerConfig(pidFile), { signal: controller.signal }).then(
      () => undefined,
      (error: unknown) => error,
    );
    const pids = await startedPids(pidFile);
    controller.abort(reason);
    expect(await connecting).toBe(reason);
    await gone(pids);
  });

  for (const how of ['exit', 'throw'] as const) {
    it(`is killed with its own children when the host process ends (${how === 'exit' ? 'process.exit()' : 'an uncaught error'})`, async ({ onTestFailed }) => {
      const pidFile = join(dir, `host-${files++}.json`);
      // A hang shows only as the timeout: say which wait it was in and what the processes were.
      let waiting = 'the host to exit';
      let host: ReturnType<typeof execFile> | undefined;
      onTestFailed(() => {
        const pids = readPids(pidFile);
        const state = pids === undefined ? 'no pid file' : `server ${pids.server} ${describeProcess(pids.server)}, helper ${pids.helper} ${describeProcess(pids.helper)}`;
        console.error(`stdio-lifecycle (${how}): waiting for ${waiting}; host pid ${host?.pid ?? '-'} exit code ${host?.exitCode ?? 'none'}; ${state}`);
      });
      const code = await new Promise<number | null>((resolve) => {
        host = execFile(process.execPath, ['--import', 'tsx', 'exiting-host.mjs', pidFile, how], { cwd: FIXTURES });
        host.on('exit', (exitCode) => resolve(exitCode));
      });
      expect(code).toBe(how === 'exit' ? 0 : 1);
      waiting = 'the pid file';
      const pids = await startedPids(pidFile);
      waiting = 'the server and its helper to end';
      await gone(pids);
    });
  }
});

/** This process's 'exit' listeners that kill live stdio servers (the hook is one named function). */
function exitHooks(): number {
  return process.listeners('exit').filter((listener) => listener.name === 'killAll').length;
}

// Runs after the block above, whose servers this process may still be closing on a busy machine
// (they are gone from the system before this process has heard so): the hook is counted by name.
describe('the exit hook that kills live stdio servers', { timeout: 30_000 }, () => {
  it('is one listener however many servers are live, and none once they are closed', async () => {
    const others = process.listenerCount('exit') - exitHooks();
    const controller = new AbortController();
    // More than Node's default of 10 listeners, which a listener per server would warn about.
    const pidFiles = Array.from({ length: 12 }, () => join(dir, `many-${files++}.json`));
    const connecting = pidFiles.map((pidFile) =>
      connectMcp(slowStartServerConfig(pidFile), { signal: controller.signal }).then(
        () => undefined,
        (error: unknown) => error,
      ),
    );
    const pids = await Promise.all(pidFiles.map(startedPids));
    expect(exitHooks()).toBe(1);
    expect(process.listenerCount('exit')).toBe(others + 1);
    controller.abort(new Error('enough'));
    await Promise.all(connecting);
    await Promise.all(pids.map(gone));
    // This process hears of each server's end a little after the system does.
    while (exitHooks() > 0) await nextTick();
    expect(process.listenerCount('exit')).toBe(others);
  });
});
