import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, createPrompt } from 'groundswell';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { readOnlyTools } from '../../src/judge/read-only-tools.js';
import { Answer, resultText, toolResultsOf } from '../support/agent-helpers.js';
import { makeFixture, SECRET, type Fixture } from './fixture.js';

let fixture: Fixture;
beforeEach(async () => {
  fixture = await makeFixture();
});
afterEach(async () => {
  await fixture.cleanup();
});

describe('the read-only tools inside an agent', () => {
  it('an escape attempt reaches the model as an is_error result, and a later good read still works', async () => {
    const model = new ScriptedModel([
      toolUse('read_file', { path: 'linkdir-out/secret.txt' }, { id: 'toolu_escape' }),
      toolUse('read_file', { path: 'notes.md', limit: 1 }, { id: 'toolu_ok' }),
      json({ answer: 'done' }),
    ]);
    const agent = createAgent({ name: 'judge', client: model.client(), tools: readOnlyTools(fixture.root) });
    const result = await agent.execute(createPrompt({ user: 'check', responseFormat: Answer }));

    const [escape] = toolResultsOf(model.requests[1]);
    expect(escape?.is_error).toBe(true);
    expect(resultText(escape)).toContain('symlink that points outside the project root');
    expect(resultText(escape)).not.toContain(SECRET);
    const [ok] = toolResultsOf(model.requests[2]);
    expect(ok?.is_error).toBe(false);
    expect(resultText(ok)).toContain('1\t# Notes');
    expect(result.value).toEqual({ answer: 'done' });
    model.assertComplete();
  });
});
