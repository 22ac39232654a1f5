import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool } from 'groundswell';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { boundedJson } from '../../src/introspection/bounded-json.js';
import { introspectionTools } from '../../src/introspection/introspection-tools.js';
import { Answer, resultText } from '../support/agent-helpers.js';
import { sentResults } from './helpers.js';

const samples: Record<string, unknown> = {
  'long string': { text: 'x'.repeat(10_000) },
  'long list': { items: Array.from({ length: 2_000 }, (_, i) => ({ i, label: `item ${i}` })) },
  'many keys': Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`key${i}`, i])),
  'long keys': Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`${'k'.repeat(120)}${i}`, i])),
  nested: { a: { b: { c: { d: { e: 'y'.repeat(3_000) } } } } },
  // Odd offsets, so a naive cut would land between the two halves of an emoji.
  emoji: { text: `a${'🙂'.repeat(5_000)}` },
  'emoji keys': Object.fromEntries(Array.from({ length: 8 }, (_, i) => [`a${'🙂'.repeat(60)}${i}`, i])),
};

describe('boundedJson', () => {
  it('returns the plain JSON when it fits', () => {
    expect(boundedJson({ a: 1, b: ['x'] }, 200)).toBe('{"a":1,"b":["x"]}');
  });

  it('never exceeds the bound, for any value and bound', () => {
    for (const [label, value] of Object.entries(samples)) {
      for (let max = 200; max <= 6_000; max += 397) {
        const text = boundedJson(value, max);
        expect(text.length, `${label} at ${max}`).toBeLessThanOrEqual(max);
        const full = JSON.stringify(value);
        if (full.length <= max) expect(text, label).toBe(full);
        else expect(text, label).toContain('…');
      }
    }
  });

  it('shrinks to still-valid JSON with markers saying what was left out', () => {
    const text = boundedJson(samples['long list'], 1_000);
    const parsed = JSON.parse(text) as { items: unknown[] };
    expect(parsed.items).toContainEqual(expect.stringMatching(/^…\[\d+ more items\]$/));
    // Head and tail are kept: the first and the last item are both there.
    expect(parsed.items[0]).toEqual({ i: 0, label: 'item 0' });
    expect(parsed.items.at(-1)).toEqual({ i: 1_999, label: 'item 1999' });
    expect(JSON.parse(boundedJson(samples['long string'], 500))).toEqual({ text: expect.stringMatching(/^x+…\[\+\d+ chars\]$/) });
  });

  it('cuts the text as a last resort, ending with the total size, without splitting a surrogate pair', () => {
    const text = boundedJson(samples['long keys'], 300);
    expect(text.length).toBeLessThanOrEqual(300);
    expect(text).toMatch(/…\[truncated: \d+ chars total\]$/);
    for (const sample of [samples.emoji, samples['emoji keys']]) {
      for (let max = 200; max < 260; max += 1) {
        const text = boundedJson(sample, max);
        expect(text.length).toBeLessThanOrEqual(max);
        // A lone high surrogate would make the text invalid UTF-16 (and unencodable as UTF-8).
        expect(text).not.toMatch(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/);
      }
    }
  });
});

describe('tool answers are bounded by maxChars', () => {
  it('a huge prior tool output comes back within maxChars, marked as shortened', async () => {
    const dump = defineTool({
      name: 'dump',
      description: 'Returns a lot.',
      input: z.object({}),
      execute: () => 'log line\n'.repeat(2_000),
    });
    const workerModel = new ScriptedModel(Array.from({ length: 5 }, () => [toolUse('dump', {}), json({ answer: 'dumped' })]).flat());
    const worker = createAgent({ name: 'worker', client: workerModel.client(), tools: [dump] });
    const model = new ScriptedModel([toolUse('inspect_prior_outputs', { limit: 50, scope: 'run' }), json({ answer: 'ok' })]);
    const agent = createAgent({ name: 'reader', client: model.client(), tools: introspectionTools({ maxChars: 600 }) });
    const workflow = createWorkflow({ name: 'wf' }, async (ctx) => {
      for (let i = 0; i < 5; i += 1) await ctx.step(`dump-${i}`, () => worker.prompt(createPrompt({ user: `dump ${i}`, responseFormat: Answer })));
      return ctx.step('read', () => agent.prompt(createPrompt({ user: 'What happened?', responseFormat: Answer })));
    });
    await workflow.run();

    const [block] = sentResults(model, 1);
    const text = resultText(block);
    expect(block?.is_error).toBe(false);
    expect(text.length).toBeLessThanOrEqual(600);
    expect(text).toContain('…[');
  });
});
