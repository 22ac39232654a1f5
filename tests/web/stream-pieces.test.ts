import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, type WorkflowEvent } from 'groundswell';
import { json, ScriptedModel, stream } from 'groundswell/testing';
import { runChunks, type RunChunk } from 'groundswell/web';
import { JsonTextPicker } from '../../src/web/json-text-picker.js';
import { agentModel } from '../support/model-path.js';

/** Every way of cutting `text` in two, then in three at a second point. */
function* cuts(text: string): Generator<string[]> {
  for (let a = 0; a <= text.length; a += 1) {
    yield [text.slice(0, a), text.slice(a)];
    for (let b = a; b <= text.length; b += 5) yield [text.slice(0, a), text.slice(a, b), text.slice(b)];
  }
}

function picked(field: string | undefined, pieces: readonly string[]): string {
  const picker = new JsonTextPicker(field);
  return pieces.map((piece) => picker.add(piece)).join('');
}

describe('the text a reader sees of a JSON answer written in pieces', () => {
  const value = { title: 'x"y', report: 'Line one.\nTabs\tand "quotes" and \\ and \u00e9 and \ud83c\udf0a and \u0001.', after: { report: 'not this' } };
  const text = JSON.stringify(value, null, 1);

  it('decodes a named field exactly, however the pieces cut keys, escapes and \\u sequences', () => {
    for (const pieces of cuts(text)) expect(picked('report', pieces)).toBe(value.report);
  });

  it('gives a string answer as the string, and an object answer as its JSON text when no field is named', () => {
    const answer = JSON.stringify('He said "hi"\n\u263a');
    for (const pieces of cuts(answer)) expect(picked(undefined, pieces)).toBe('He said "hi"\n\u263a');
    for (const pieces of cuts(text)) expect(picked(undefined, pieces)).toBe(text);
  });

  it('gives nothing for a field the answer does not have at its top level', () => {
    expect(picked('missing', [text])).toBe('');
    expect(picked('report', ['{"after":{"report":"nested"},"n":1}'])).toBe('');
  });
});

describe('secrets in streamed text', () => {
  it('never sends a piece of a secret the model writes split over pieces: the tree, and the stream, show it masked', async () => {
    const secret = 'sk-live-7f3a9c21e8b4';
    const model = new ScriptedModel([stream(json({ answer: `the key is ${secret}, keep it` }), { chunkSize: 3 })]);
    const agent = createAgent({ name: 'leaky', ...(await agentModel(model)) });
    const workflow = createWorkflow({ name: 'leak', streamText: true }, async (ctx) =>
      ctx.step('ask', () => agent.prompt(createPrompt({ user: 'key?', responseFormat: z.object({ answer: z.string() }) }), { env: { API_KEY: secret } })),
    );
    const seen: WorkflowEvent[] = [];
    workflow.addObserver({ onEvent: (event) => void seen.push(event) });
    const chunks: RunChunk[] = [];
    const reading = (async () => {
      for await (const chunk of runChunks(workflow, { textField: 'answer' })) chunks.push(chunk);
    })();
    await workflow.run();
    await reading;
    const pieces = seen.flatMap((event) => (event.type === 'agentText' ? [event.delta] : []));
    expect(pieces.length).toBeGreaterThan(3);
    const joined = pieces.join('');
    expect(joined).toBe(JSON.stringify({ answer: 'the key is ***, keep it' }));
    // No piece holds any 4 characters in a row of the secret.
    for (let i = 0; i + 4 <= secret.length; i += 1) expect(pieces.some((piece) => piece.includes(secret.slice(i, i + 4)))).toBe(false);
    const text = chunks.flatMap((c) => (c.chunk.type === 'text-delta' ? [c.chunk.delta] : [])).join('');
    expect(text).toBe('the key is ***, keep it');
  });
});
