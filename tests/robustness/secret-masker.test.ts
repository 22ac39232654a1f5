import { describe, expect, it } from 'vitest';
import { createAgent, createPrompt, createWorkflow, defineTool, exportRun, ObservedState, Workflow, WorkflowTreeDebugger } from 'groundswell';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { z } from 'zod';
import { MIN_SECRET_CHARS, MIN_SECRET_LINE_CHARS, secretForms } from '../../src/util/secret-forms.js';
import { SecretMasker } from '../../src/util/secret-masker.js';
import { record } from '../support/events.js';

const KEY = '-----BEGIN KEY-----\nAAAABBBBCCCCDDDDEEEEFFFF\nGGGGHHHHIIIIJJJJ\nshort\n-----END KEY-----';

describe('SecretMasker', () => {
  it('with no secrets is the identity: same text, same objects', () => {
    const masker = SecretMasker.of([]);
    const data = { a: ['x'], b: { c: 'y' } };
    expect(masker).toBe(SecretMasker.NONE);
    expect(masker.active).toBe(false);
    expect(masker.value(data)).toBe(data);
    expect(masker.contains(data)).toBe(false);
  });

  it('masks the raw, JSON-escaped and twice-escaped forms, longest first (one *** per occurrence)', () => {
    const secret = 'pw "quoted" C:\\dir';
    const masker = SecretMasker.of([secret]);
    const once = JSON.stringify({ secret });
    const twice = JSON.stringify({ wrapped: once });
    expect(masker.text(`a ${secret} b`)).toBe('a *** b');
    expect(masker.text(once)).toBe('{"secret":"***"}');
    expect(masker.text(twice)).toBe('{"wrapped":"{\\"secret\\":\\"***\\"}"}');
  });

  it('masks a multi-line secret whole (LF or CRLF), and its long lines on their own; short lines stay', () => {
    const masker = SecretMasker.of([KEY]);
    expect(masker.text(`key:\n${KEY}\n`)).toBe('key:\n***\n');
    expect(masker.text(KEY.replace(/\n/g, '\r\n'))).toBe('***');
    expect(masker.text(JSON.stringify(KEY))).toBe('"***"');
    // Re-wrapped: only lines at least MIN_SECRET_LINE_CHARS long are masked on their own.
    expect(masker.text('AAAABBBBCCCCDDDDEEEEFFFF then short')).toBe('*** then short');
    expect(secretForms(KEY)).not.toContain('short');
    expect(MIN_SECRET_LINE_CHARS).toBe(16);
  });

  it('ignores values shorter than MIN_SECRET_CHARS and non-text values; numbers count as text', () => {
    expect(MIN_SECRET_CHARS).toBe(4);
    const masker = SecretMasker.of(['abc', '   ', null, undefined, { x: 'object-value' }, 48213]);
    expect(masker.secrets).toEqual(['48213']);
    expect(masker.text('abc 48213')).toBe('abc ***');
    expect(masker.value({ pin: 48213, other: 7 })).toEqual({ pin: '***', other: 7 });
  });

  it('masks inside nested data and keys, copying only what changed; frozen stays frozen', () => {
    const masker = SecretMasker.of(['sk-secret-1']);
    const untouched = { plain: ['a', 'b'] };
    const data = Object.freeze({ untouched, list: ['x', 'use sk-secret-1'], ['sk-secret-1']: true });
    const masked = masker.value(data);
    expect(masked).toEqual({ untouched, list: ['x', 'use ***'], '***': true });
    expect(masked.untouched).toBe(untouched);
    expect(Object.isFrozen(masked)).toBe(true);
    expect(masker.contains(data)).toBe(true);
    expect(masker.contains(untouched)).toBe(false);
  });

  it('with() returns the same masker when nothing is new', () => {
    const masker = SecretMasker.of(['token-one']);
    expect(masker.with(['token-one', 'no'])).toBe(masker);
    expect(masker.with(['token-two']).secrets).toEqual(['token-one', 'token-two']);
  });

  it('a hostile or very deep value cannot break it', () => {
    const masker = SecretMasker.of(['token-one']);
    const hostile = new Proxy({}, { ownKeys: () => { throw new Error('no'); } });
    expect(masker.value({ hostile })).toEqual({ hostile: '[unreadable value]' });
    let deep: unknown = 'token-one';
    for (let i = 0; i < 200; i += 1) deep = [deep];
    expect(JSON.stringify(masker.value(deep))).not.toContain('token-one');
  });
});

describe('the run remembers its secrets', () => {
  it('a redacted value quoted in a step log or error is masked without any agent call', async () => {
    class Vault extends Workflow<void> {
      @ObservedState({ redact: true }) token = 'vault-token-0042';
    }
    const vault = new Vault({ name: 'vault' }, async (ctx) => {
      await ctx.step('use', () => {
        vault.logger.info('opening with vault-token-0042');
        throw new Error('refused vault-token-0042');
      });
    });
    const recording = record(vault);
    const error = (await vault.run().then(
      () => undefined,
      (e: unknown) => e,
    )) as Error;
    expect(recording.logs.map((log) => log.message)).toEqual(['opening with ***']);
    expect(error.message).toContain('refused ***');
    expect(JSON.stringify(recording.events)).not.toContain('vault-token-0042');
    expect(new WorkflowTreeDebugger(vault).toTreeString()).toContain('refused ***');
  });

  it('a workflow moved under another root takes the secrets it learnt along', async () => {
    const tool = defineTool({ name: 'ping', description: 'Ping.', input: z.object({}), execute: () => 'pong' });
    const model = new ScriptedModel([toolUse('ping', {}), json({ done: true })]);
    const agent = createAgent({ name: 'a', client: model.client(), tools: [tool], env: { TOKEN: 'moved-token-77' } });
    const child = createWorkflow({ name: 'child' }, (ctx) => ctx.step('ask', () => agent.prompt(createPrompt({ user: 'go', responseFormat: z.object({ done: z.boolean() }) }))));
    await child.run();
    const parent = createWorkflow({ name: 'parent' }, () => undefined);
    parent.attachChild(child);
    child.logger.info('later: moved-token-77');
    expect(JSON.stringify(exportRun(parent.node))).toContain('later: ***');
    expect(JSON.stringify(exportRun(parent.node))).not.toContain('moved-token-77');
  });
});
