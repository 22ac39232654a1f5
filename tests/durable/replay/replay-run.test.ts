import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, type Workflow, type WorkflowContext } from 'groundswell';
import { exportRecording, formatDivergence, JournalRunStore, readRecording, replayRun, writeRecording, type Recording } from 'groundswell/durable';
import { expectReplay, json, ScriptedModel } from 'groundswell/testing';
import { runCli } from '../../../src/cli/run-cli.js';
import { agentModelSync, nativeOnly } from '../../support/model-path.js';

const Answer = z.object({ n: z.number() });

let dir: string;
let store: JournalRunStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-replay-run-'));
  store = new JournalRunStore({ dir, fsync: 'off' });
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Variant {
  /** The user text of the second step's prompt. */
  readonly second?: string;
  readonly extraStep?: boolean;
  readonly dropLast?: boolean;
  readonly schema?: z.ZodType<{ n: number }>;
}

/** A three-step pipeline, one agent call per step; `variant` is the change a replay should catch. */
function pipeline(model: ScriptedModel, variant: Variant = {}): (input: unknown) => Workflow<number> {
  const agent = createAgent({ name: 'counter', ...agentModelSync(model) });
  const ask = (user: string) => agent.prompt(createPrompt({ user, responseFormat: variant.schema ?? Answer }));
  return () =>
    createWorkflow({ name: 'Pipeline', durable: { store, runId: 'r1' } }, async (ctx: WorkflowContext) => {
      let total = (await ctx.step('first', () => ask('count the apples'))).n;
      total += (await ctx.step('second', () => ask(variant.second ?? 'count the pears\nthen add one'))).n;
      if (variant.extraStep === true) total += await ctx.step('bonus', () => 1);
      if (variant.dropLast !== true) total += (await ctx.step('third', () => ask('count the plums'))).n;
      return total;
    });
}

/** Runs the pipeline once for real and returns its recording, as exported from the store. */
async function record(): Promise<{ recording: Recording; requests: number }> {
  const live = new ScriptedModel([json({ n: 1 }), json({ n: 2 }), json({ n: 3 })]);
  expect(await pipeline(live)(undefined).run()).toBe(6);
  return { recording: await exportRecording(store, 'r1'), requests: live.requests.length };
}

/** A model that fails any request: a replay must never reach it. */
function closedModel(): ScriptedModel {
  return new ScriptedModel([]);
}

describe('replayRun', () => {
  it('replays the same code as "same", with no model request, from an export and from a file', async () => {
    const { recording, requests } = await record();
    expect(requests).toBe(3);
    const offline = closedModel();
    expect(await replayRun(recording, { workflows: { Pipeline: pipeline(offline) } })).toEqual({ same: true, result: 6 });
    const file = join(dir, 'run.json');
    await writeRecording(file, recording);
    expect(await replayRun(file, { workflows: { Pipeline: pipeline(offline) } })).toEqual({ same: true, result: 6 });
    expect(offline.requests).toHaveLength(0);
    // The store's run is untouched by the replays.
    expect(await exportRecording(store, 'r1')).toEqual(recording);
    expect((await readRecording(file)).calls).toHaveLength(3);
  });

  it('reports a changed prompt at its node, with a diff of the user text', async () => {
    const { recording } = await record();
    const offline = closedModel();
    const replay = await replayRun(recording, { workflows: { Pipeline: pipeline(offline, { second: 'count the pears\nthen add two' }) } });
    expect(offline.requests).toHaveLength(0);
    expect(replay.same).toBe(false);
    if (replay.same) return;
    expect(replay.divergence.kind).toBe('call-changed');
    expect(replay.divergence.key).toBe('/Pipeline#0:second#0/agent:counter#0');
    expect(replay.divergence.path).toMatch(/^Pipeline › second › counter: /);
    expect(replay.divergence.parts.map((p) => p.part)).toEqual(['user']);
    expect(replay.divergence.parts[0]?.diff).toContain('- then add one\n+ then add two');
    expect(formatDivergence(replay.divergence)).toContain('user (- recorded, + now):');
  });

  it('reports a changed answer schema', async () => {
    const { recording } = await record();
    const replay = await replayRun(recording, { workflows: { Pipeline: pipeline(closedModel(), { schema: z.object({ n: z.number().int().min(0) }) }) } });
    expect(replay.same ? undefined : replay.divergence.parts.map((p) => p.part)).toEqual(['schema']);
  });

  it('reports an added step where it starts, and a removed step once the run ends', async () => {
    const { recording } = await record();
    const added = await replayRun(recording, { workflows: { Pipeline: pipeline(closedModel(), { extraStep: true }) } });
    expect(added.same ? undefined : [added.divergence.kind, added.divergence.key]).toEqual(['step-added', '/Pipeline#0:bonus#0']);
    const removed = await replayRun(recording, { workflows: { Pipeline: pipeline(closedModel(), { dropLast: true }) } });
    expect(removed.same ? undefined : [removed.divergence.kind, removed.divergence.key]).toEqual(['step-removed', '/Pipeline#0:third#0']);
  });

  it('refuses a recording of a newer format by name, and a file that is not one', async () => {
    const { recording } = await record();
    await expect(replayRun({ ...recording, version: 99 }, { workflows: {} })).rejects.toThrow(/version 99 recording; this release of groundswell reads versions up to 1/);
    const file = join(dir, 'not.json');
    await writeRecording(file, recording);
    expect(readFileSync(file, 'utf8')).toContain('"format":"groundswell.recording"');
    await expect(replayRun({ format: 'x' } as never, { workflows: {} })).rejects.toThrow(/is not a groundswell recording/);
  });
});

describe('replayRun and tools', () => {
  /** One step whose agent is offered a lookup tool; `input` is the tool's input schema. */
  function withTool(model: ScriptedModel, input: z.ZodType = z.object({ city: z.string() })): () => Workflow<number> {
    const lookup = defineTool({ name: 'lookup', description: 'Looks a city up.', input, execute: () => 'sunny' });
    const agent = createAgent({ name: 'forecaster', tools: [lookup], ...agentModelSync(model) });
    return () =>
      createWorkflow({ name: 'Forecast', durable: { store, runId: 't1' } }, async (ctx) => (await ctx.step('ask', () => agent.prompt(createPrompt({ user: 'Weather?', responseFormat: Answer })))).n);
  }

  it('reports a changed tool definition at the call, with a diff of the tool list', async () => {
    expect(await withTool(new ScriptedModel([json({ n: 4 })]))().run()).toBe(4);
    const recording = await exportRecording(store, 't1');
    expect(recording.calls[0]?.request?.tools?.map((t) => t.name)).toEqual(['lookup']);
    const offline = closedModel();
    expect((await replayRun(recording, { workflows: { Forecast: withTool(offline) } })).same).toBe(true);
    const changed = await replayRun(recording, { workflows: { Forecast: withTool(offline, z.object({ city: z.string(), country: z.string() })) } });
    expect(changed.same ? undefined : [changed.divergence.kind, changed.divergence.parts.map((p) => p.part)]).toEqual(['call-changed', ['tools']]);
    expect(changed.same ? '' : changed.divergence.parts[0]?.diff).toMatch(/\+\s+"country"/);
    expect(offline.requests).toHaveLength(0);
  });
});

describe('steps marked recorded', () => {
  it('are served from the recording in a replay: their bodies do not run again', async () => {
    let fetches = 0;
    const build = (model: ScriptedModel) => () => {
      const agent = createAgent({ name: 'reader', ...agentModelSync(model) });
      return createWorkflow({ name: 'Reader', durable: { store, runId: 'rec1' } }, async (ctx) => {
        // Stands for a fetch: an outside call a replay must not make again.
        const page = await ctx.step('fetch', async () => `page ${++fetches}`, { recorded: true });
        return (await ctx.step('read', () => agent.prompt(createPrompt({ user: `Count words in: ${page}`, responseFormat: Answer })))).n;
      });
    };
    expect(await build(new ScriptedModel([json({ n: 2 })]))().run()).toBe(2);
    const recording = await exportRecording(store, 'rec1');
    expect(recording.steps.find((s) => s.key.includes(':fetch#'))?.recorded).toBe(true);
    // Run again, the fetch would say "page 2" and the prompt would differ: served, it says "page 1".
    expect(await replayRun(recording, { workflows: { Reader: build(closedModel()) } })).toEqual({ same: true, result: 2 });
    expect(fetches).toBe(1);
  });
});

describe('expectReplay', () => {
  it('passes on the same code and fails with the divergence and its diff', async () => {
    const { recording } = await record();
    await expectReplay(recording, { Pipeline: pipeline(closedModel()) });
    const failed = await expectReplay(recording, { Pipeline: pipeline(closedModel(), { second: 'count the figs' }) }).catch((e: unknown) => e);
    expect((failed as Error).message).toMatch(/differs from the recording in user[\s\S]*- count the pears\n\s+- then add one\n\s+\+ count the figs/);
  });
});

describe('groundswell runs export, groundswell replay', () => {
  async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
    return { code, out: out.join('\n'), err: err.join('\n') };
  }

  /** A workflows module for the CLI: the pipeline, its second prompt given, on a model that refuses every request. */
  function workflowsModule(second: string): string {
    const file = join(dir, `workflows-${second.length}.mjs`);
    writeFileSync(
      file,
      `import { z } from 'zod';\nimport { createAgent, createPrompt, createWorkflow } from 'groundswell';\nimport { ScriptedModel } from 'groundswell/testing';\n` +
        `const agent = createAgent({ name: 'counter', client: new ScriptedModel([]).client() });\n` +
        `const ask = (user) => agent.prompt(createPrompt({ user, responseFormat: z.object({ n: z.number() }) }));\n` +
        `export const workflows = { Pipeline: () => createWorkflow({ name: 'Pipeline' }, async (ctx) => {\n` +
        `  let total = (await ctx.step('first', () => ask('count the apples'))).n;\n` +
        `  total += (await ctx.step('second', () => ask(${JSON.stringify(second)}))).n;\n` +
        `  return total + (await ctx.step('third', () => ask('count the plums'))).n;\n}) };\n`,
    );
    return file;
  }

  // The CLI's workflows module runs its agent on the Anthropic client, as the recording's did.
  nativeOnly('exports a stored run to a file, replays it as the same (exit 0) and a changed prompt as a divergence (exit 1)', async () => {
    await record();
    const file = join(dir, 'r1.recording.json');
    const exported = await cli('runs', 'export', 'r1', '--store', dir, '--out', file);
    expect(exported).toEqual({ code: 0, out: `Run r1 recorded to ${file}: 3 steps, 3 agent calls.`, err: '' });
    const same = await cli('replay', file, '--workflows', workflowsModule('count the pears\nthen add one'));
    expect([same.code, same.out]).toEqual([0, 'Same as recorded: every step and agent call matched; result 6.']);
    const changed = await cli('replay', file, '--workflows', workflowsModule('count the pears'));
    expect(changed.code).toBe(1);
    expect(changed.err).toContain('Replay diverged at Pipeline › second › counter');
    expect(changed.err).toContain('- then add one');
    expect((await cli('replay', join(dir, 'missing.json'), '--workflows', workflowsModule('x'))).code).toBe(2);
  });
});
