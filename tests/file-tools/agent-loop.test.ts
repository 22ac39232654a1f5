import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createAgent, createPrompt } from 'groundswell';
import { json, ScriptedModel, toolUse } from 'groundswell/testing';
import { readOnlyTools } from '../../src/file-tools/read-only-tools.js';
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

  it('a bad glob and a catastrophic regex reach the model as is_error results, not as thrown SyntaxErrors', async () => {
    const model = new ScriptedModel([
      toolUse('find_files', { pattern: '[z-a]*' }, { id: 'toolu_glob' }),
      toolUse('grep', { pattern: '^(a+)+$', regex: true }, { id: 'toolu_regex' }),
      json({ answer: 'done' }),
    ]);
    const agent = createAgent({ name: 'judge', client: model.client(), tools: readOnlyTools(fixture.root) });
    const result = await agent.execute(createPrompt({ user: 'check', responseFormat: Answer }));

    const [glob] = toolResultsOf(model.requests[1]);
    expect(glob?.is_error).toBe(true);
    expect(resultText(glob)).toBe('Tool "find_files" failed: The glob\'s character class "[z-a]" has a range that runs backwards (z-a).');
    const [regex] = toolResultsOf(model.requests[2]);
    expect(regex?.is_error).toBe(true);
    expect(resultText(regex)).toMatch(/^Tool "grep" failed: The regular expression "\^\(a\+\)\+\$" repeats a group that has a quantifier inside/);
    expect(result.value).toEqual({ answer: 'done' });
    model.assertComplete();
  });
});
