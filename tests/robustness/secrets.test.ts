import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  defineTool,
  exportRun,
  getCurrentWorkflow,
  introspectionTools,
  ObservedState,
  Workflow,
  WorkflowError,
  WorkflowTreeDebugger,
  type WorkflowContext,
} from 'groundswell';
import { FileCacheStore } from 'groundswell/cache';
import { json, ScriptedModel, toolUse, type RecordedRequest } from 'groundswell/testing';
import { record } from '../support/events.js';

const TOKEN = 'tok-7Hq2Zk9LmP4vW8xR3nB6cT1yF5sD0gJ-live';
const PEM = [
  '-----BEGIN PRIVATE KEY-----',
  'MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj',
  'MzEfYyjiWA4R4M2bS1GB4t7NXp98C3SC6dVMvDuictGeurT8jNbvJZHtCSuLEE5U',
  'd9yq1yLYZzXe7ZdNMLh0gWAvO5BFVzAyIUEGNS5ftHXYUvqdbMqQ2xW8kLp3Rn7A',
  '-----END PRIVATE KEY-----',
].join('\n');
// A redacted field value with a quote and a backslash: its JSON-escaped form differs from it.
const PASSWORD = 'vault-pw "Q7x" C:\\keys\\main';

/** Every form a secret must never take in stored text: raw, JSON-escaped once and twice, and each PEM line. */
function forbiddenForms(): Array<[string, string]> {
  const forms: Array<[string, string]> = [];
  for (const [name, secret] of [['API_TOKEN', TOKEN], ['PEM', PEM], ['password', PASSWORD]] as const) {
    const once = JSON.stringify(secret).slice(1, -1);
    forms.push([name, secret], [`${name} (JSON-escaped)`, once], [`${name} (JSON-escaped twice)`, JSON.stringify(once).slice(1, -1)]);
  }
  for (const line of PEM.split('\n').slice(1, -1)) forms.push(['a PEM line', line]);
  return forms;
}

function expectClean(text: string, where: string): void {
  for (const [name, form] of forbiddenForms()) expect(text.includes(form), `${where} leaks ${name}`).toBe(false);
}

const Done = z.object({ done: z.boolean(), note: z.string() });

function workerTools() {
  const echoInput = defineTool({
    name: 'echo_input',
    description: 'Receives text.',
    input: z.object({ text: z.string() }),
    execute: ({ text }) => `received ${text.length} characters`,
  });
  const readSecret = defineTool({
    name: 'read_secret',
    description: 'Reads the token.',
    input: z.object({}),
    execute: (_input, { env }) => `token=${env['API_TOKEN']} password=${PASSWORD}`,
  });
  const readKeyJson = defineTool({
    name: 'read_key_json',
    description: 'Reads the key as JSON.',
    effect: 'read',
    target: () => 'keys/signing.json',
    input: z.object({}),
    execute: (_input, { env }) => ({ key: env['PEM'], token: env['API_TOKEN'] }),
  });
  const failingAuth = defineTool({
    name: 'failing_auth',
    description: 'Fails.',
    input: z.object({}),
    execute: (_input, { env }) => {
      throw new Error(`401 for token ${env['API_TOKEN']} with key ${env['PEM']}`);
    },
  });
  const logSecret = defineTool({
    name: 'log_secret',
    description: 'Logs.',
    input: z.object({}),
    execute: (_input, { env }) => {
      getCurrentWorkflow()?.logger.info(`authenticating with ${env['API_TOKEN']}`, { pem: env['PEM'], password: PASSWORD });
      return 'logged';
    },
  });
  return [echoInput, readSecret, readKeyJson, failingAuth, logSecret];
}

class Deploy extends Workflow<void> {
  @ObservedState({ redact: true }) vaultPassword = PASSWORD;
  @ObservedState() lastNote = 'none';
}

/** A run that meets the secrets on every channel, and everything it left behind. */
async function leakyRun() {
  const cacheDir = mkdtempSync(join(tmpdir(), 'gs-secrets-cache-'));
  const workerModel = new ScriptedModel([
    toolUse([
      { name: 'echo_input', input: { text: `use ${TOKEN} and ${PASSWORD}` }, id: 'toolu_echo' },
      { name: 'read_secret', input: {}, id: 'toolu_read' },
      { name: 'read_key_json', input: {}, id: 'toolu_key' },
      { name: 'failing_auth', input: {}, id: 'toolu_fail' },
      { name: 'log_secret', input: {}, id: 'toolu_log' },
    ]),
    json({ done: true, note: `deployed with ${TOKEN}` }),
  ]);
  const worker = createAgent({
    name: 'worker',
    client: workerModel.client(),
    tools: workerTools(),
    env: { API_TOKEN: TOKEN, PEM },
    trajectory: { checkpoint: 'always' },
    enableCache: true,
    cache: new FileCacheStore({ dir: cacheDir }),
  });
  const inspectorModel = new ScriptedModel([toolUse('inspect_prior_outputs', { scope: 'run', limit: 50 }), json({ done: true, note: 'seen' })]);
  // Another agent, without the worker's env, looking at the run.
  const inspector = createAgent({ name: 'inspector', client: inspectorModel.client(), tools: introspectionTools({ maxChars: 50_000 }) });

  const deploy: Deploy = new Deploy({ name: 'deploy' }, async (ctx: WorkflowContext) => {
    await ctx.step('work', async () => {
      const answer = await worker.prompt(createPrompt({ name: 'work', user: 'Deploy the service', responseFormat: Done }));
      deploy.lastNote = answer.note;
      deploy.snapshotState();
    });
    await ctx.step('inspect', () => inspector.prompt(createPrompt({ name: 'inspect', user: 'What happened so far?', responseFormat: Done })));
    await ctx.step('verify', () => {
      throw new Error(`verification failed with ${TOKEN} and ${PEM}`);
    });
  });
  const recording = record(deploy);
  const error = await deploy.run().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  workerModel.assertComplete();
  inspectorModel.assertComplete();
  const cacheFiles = readdirSync(cacheDir).map((name) => readFileSync(join(cacheDir, name), 'utf8'));
  return { deploy, recording, error, workerModel, inspectorModel, cacheFiles };
}

function systemText(request: RecordedRequest | undefined): string {
  const system = request?.body.system;
  if (system === undefined) return '';
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n');
}

describe('secrets (env values, redacted fields) are masked on every channel', () => {
  it('events, logs, tree string, run export, state, checkpoints, errors, cache files and introspection answers', async () => {
    const run = await leakyRun();
    const { deploy, recording, error } = run;

    // The model itself got the values it needs (masking is for what is kept and observed).
    const toolResults = JSON.stringify(run.workerModel.requests[1]?.body.messages);
    expect(toolResults).toContain(TOKEN);
    expect(toolResults).toContain(JSON.stringify(PEM).slice(1, -1));

    // Events, one by one, as an observer saw them.
    expect(recording.events.length).toBeGreaterThan(10);
    for (const event of recording.events) expectClean(JSON.stringify(event), `the ${event.type} event`);
    const tool = (name: string) => recording.events.find((e) => e.type === 'toolInvocation' && e.toolName === name);
    expect(tool('read_secret')).toMatchObject({ output: 'token=*** password=***' });
    expect(tool('echo_input')).toMatchObject({ input: { text: 'use *** and ***' } });
    expect(tool('read_key_json')).toMatchObject({ output: '{"key":"***","token":"***"}' });
    expect(tool('failing_auth')).toMatchObject({ isError: true, output: 'Tool "failing_auth" failed: 401 for token *** with key ***' });

    // Logs, as observers got them and as the nodes keep them.
    expect(recording.logs.map((log) => log.message)).toContain('authenticating with ***');
    for (const log of recording.logs) expectClean(JSON.stringify(log), 'a log entry');
    expectClean(new WorkflowTreeDebugger(deploy).toLogString(), 'the log string');

    // The tree string (failed tool and failed step lines included), the export, the state.
    const tree = new WorkflowTreeDebugger(deploy).toTreeString();
    expect(tree).toContain('401 for token ***');
    expect(tree).toContain('verification failed with ***');
    expectClean(tree, 'the tree string');
    expectClean(JSON.stringify(exportRun(deploy.node)), 'the run export');
    expect(deploy.node.stateSnapshot).toEqual({ vaultPassword: '***', lastNote: 'deployed with ***' });

    // The checkpoint text sent with each request, and its events.
    const checkpoints = run.workerModel.requests.map((request) => systemText(request)).filter((text) => text.includes('[TRAJECTORY CHECKPOINT]'));
    expect(checkpoints.length).toBeGreaterThan(0);
    expect(checkpoints.join('\n')).toContain('keys/signing.json');
    for (const text of checkpoints) expectClean(text, 'the checkpoint text');
    expect(recording.events.some((e) => e.type === 'trajectoryCheckpoint')).toBe(true);

    // The error the run rejected with: message, JSON form, its state and logs.
    expect(error).toBeInstanceOf(WorkflowError);
    const failure = error as WorkflowError;
    expect(failure.message).toContain('verification failed with ***');
    expectClean(failure.message, 'the error message');
    expectClean(JSON.stringify(failure), 'the error JSON');
    expectClean(JSON.stringify(failure.logs), 'the error logs');
    expectClean(JSON.stringify(failure.state), 'the error state');
    // What user code threw is handed back untouched, as `cause`: the caller's own value.
    expect((failure.cause as Error).message).toContain(TOKEN);

    // The answer quoted the token: not written to the cache store at all.
    expect(run.cacheFiles).toEqual([]);

    // Another agent, without that env, reading the run through inspect_prior_outputs.
    const answer = JSON.stringify(run.inspectorModel.requests[1]?.body.messages);
    expect(answer).toContain('read_key_json');
    expect(answer).toContain('token=***');
    expectClean(answer, 'the inspect_prior_outputs answer');
  });

  it('a multi-line key inside a JSON tool output: masked in the checkpoint text and its event, not only its raw form', async () => {
    const model = new ScriptedModel([toolUse('read_key_json', {}), json({ done: true, note: 'ok' })]);
    const agent = createAgent({ name: 'signer', client: model.client(), tools: workerTools(), env: { API_TOKEN: TOKEN, PEM }, trajectory: { checkpoint: 'always' } });
    const flow = new Deploy({ name: 'sign' }, async (ctx: WorkflowContext) => {
      await ctx.step('sign', () => agent.prompt(createPrompt({ name: 'sign', user: 'Sign it', responseFormat: Done })));
    });
    const recording = record(flow);
    await flow.run();
    const text = checkpointTextOf(model.requests[1]);
    expect(text).toContain('read_key_json on keys/signing.json: {"key":"***","token":"***"}');
    expectClean(text, 'the checkpoint text');
    const events = recording.events.filter((e) => e.type === 'trajectoryCheckpoint');
    expect(events.length).toBeGreaterThan(0);
    for (const event of events) expectClean(JSON.stringify(event), 'the checkpoint event');
  });

  it('CRLF line ends and an indented, re-wrapped key are masked too', async () => {
    const crlf = PEM.replace(/\n/g, '\r\n');
    const indented = PEM.split('\n').map((line) => `    ${line}`).join('\n');
    const echo = defineTool({ name: 'show', description: 'Shows.', input: z.object({}), execute: () => `${crlf}\n---\n${indented}` });
    const model = new ScriptedModel([toolUse('show', {}), json({ done: true, note: 'ok' })]);
    const agent = createAgent({ name: 'shower', client: model.client(), tools: [echo], env: { PEM } });
    const flow = new Deploy({ name: 'show' }, async (ctx: WorkflowContext) => {
      await ctx.step('show', () => agent.prompt(createPrompt({ name: 'show', user: 'Show it', responseFormat: Done })));
    });
    const recording = record(flow);
    await flow.run();
    const output = recording.events.find((e) => e.type === 'toolInvocation');
    expect(output).toMatchObject({ output: expect.stringContaining('***\n---\n') });
    expectClean(JSON.stringify(output), 'the tool event');
  });
});

describe('agents without the env', () => {
  it('a child agent called from a tool masks the parent call’s env in its own checkpoint text and parent slice', async () => {
    const leak = defineTool({ name: 'read_config', description: 'Reads.', effect: 'read', target: () => 'app.env', input: z.object({}), execute: () => `API_TOKEN=${TOKEN}` });
    const childModel = new ScriptedModel([toolUse('read_config', {}), json({ done: true, note: 'read' })]);
    const child = createAgent({ name: 'child', client: childModel.client(), tools: [leak], trajectory: { checkpoint: 'always' } });
    const delegate = defineTool({
      name: 'delegate',
      description: 'Delegates.',
      input: z.object({}),
      execute: () => child.prompt(createPrompt({ name: 'child', user: 'Read the config', responseFormat: Done })),
    });
    const parentModel = new ScriptedModel([toolUse('read_secret', {}), toolUse('delegate', {}), json({ done: true, note: 'ok' })]);
    const parent = createAgent({
      name: 'parent',
      client: parentModel.client(),
      tools: [...workerTools(), delegate],
      env: { API_TOKEN: TOKEN, PEM },
      trajectory: { checkpoint: 'always' },
    });
    const flow = new Deploy({ name: 'delegate' }, async (ctx: WorkflowContext) => {
      await ctx.step('work', () => parent.prompt(createPrompt({ name: 'work', user: 'Work', responseFormat: Done })));
    });
    await flow.run();
    childModel.assertComplete();
    const childText = childModel.requests.map((request) => systemText(request)).join('\n');
    expect(childText).toContain('[PARENT TRAJECTORY');
    expect(childText).toContain('read_config on app.env: API_TOKEN=***');
    expectClean(childText, 'the child agent’s checkpoint text');
  });
});

describe('the cache and secrets', () => {
  it('an answer quoting a secret is not stored (and said so in the log); a clean answer is stored and hits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-secrets-cache-'));
    const model = new ScriptedModel([
      json({ done: true, note: `token ${TOKEN}` }),
      json({ done: true, note: `token ${TOKEN}` }),
      json({ done: true, note: 'clean' }),
    ]);
    const agent = createAgent({ name: 'cached', client: model.client(), env: { API_TOKEN: TOKEN }, enableCache: true, cache: new FileCacheStore({ dir }) });
    const secretPrompt = createPrompt({ name: 'secret', user: 'Which token?', responseFormat: Done });
    const cleanPrompt = createPrompt({ name: 'clean', user: 'Anything?', responseFormat: Done });
    let first: unknown;
    const flow = new Deploy({ name: 'cache' }, async (ctx: WorkflowContext) => {
      first = await ctx.step('first', () => agent.prompt(secretPrompt));
      await ctx.step('again', () => agent.prompt(secretPrompt));
      await ctx.step('clean', () => agent.prompt(cleanPrompt));
      await ctx.step('hit', () => agent.prompt(cleanPrompt));
    });
    const recording = record(flow);
    await flow.run();
    // The caller gets what the model said; the second secret call went to the model again.
    expect(first).toEqual({ done: true, note: `token ${TOKEN}` });
    expect(model.requests).toHaveLength(3);
    model.assertComplete();
    expect(recording.logs.filter((log) => log.message.includes('not cached: it contains a secret value'))).toHaveLength(2);
    expect(recording.events.filter((e) => e.type === 'cacheHit')).toHaveLength(1);
    // One entry, and the index file naming it (latest-<identity>.idx).
    const names = readdirSync(dir);
    expect(names.filter((name) => name.endsWith('.json'))).toHaveLength(1);
    expect(names.filter((name) => name.endsWith('.idx'))).toHaveLength(1);
    const files = names.map((name) => readFileSync(join(dir, name), 'utf8'));
    expect(files.find((file) => file.includes('"response"'))).toContain('clean');
    for (const file of files) expectClean(file, 'a cache file');
  });
});

describe('names made from secret text', () => {
  it('a default prompt name cut from a user message with a secret does not show the secret\'s start in the tree', async () => {
    const model = new ScriptedModel([json({ done: true, note: 'rotated' })]);
    const agent = createAgent({ name: 'ops', client: model.client(), env: { API_TOKEN: TOKEN } });
    const flow = new Deploy({ name: 'rotate' }, async (ctx: WorkflowContext) => {
      // No name: the prompt is named by the first 37 characters, which cut the token in half.
      await ctx.step('ask', () => agent.prompt(createPrompt({ user: `Rotate ${TOKEN} before noon today`, responseFormat: Done })));
    });
    await flow.run();
    const tree = new WorkflowTreeDebugger(flow).toTreeString();
    expect(tree).toContain('ops: Rotate ***');
    expect(tree).not.toContain(TOKEN.slice(0, 12));
  });
});

describe('what is not masked', () => {
  it('env values shorter than 4 characters are left alone (they would mangle ordinary text)', async () => {
    const echo = defineTool({ name: 'env', description: 'Env.', input: z.object({}), execute: (_i, { env }) => `mode=${env['MODE']} region=${env['REGION']}` });
    const model = new ScriptedModel([toolUse('env', {}), json({ done: true, note: 'ok' })]);
    const agent = createAgent({ name: 'short', client: model.client(), tools: [echo], env: { MODE: 'dev', REGION: 'eu-west-1' } });
    const flow = new Deploy({ name: 'short' }, async (ctx: WorkflowContext) => {
      await ctx.step('ask', () => agent.prompt(createPrompt({ name: 'ask', user: 'Env?', responseFormat: Done })));
    });
    const recording = record(flow);
    await flow.run();
    expect(recording.events.find((e) => e.type === 'toolInvocation')).toMatchObject({ output: 'mode=dev region=***' });
  });
});

function checkpointTextOf(request: RecordedRequest | undefined): string {
  const text = systemText(request);
  const at = text.indexOf('[TRAJECTORY CHECKPOINT]');
  return at < 0 ? '' : text.slice(at);
}
