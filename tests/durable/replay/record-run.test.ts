import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, ObservedState, Step, Workflow } from 'groundswell';
import { readRecording, recordRun, replayRun } from 'groundswell/durable';
import { json, ScriptedModel } from 'groundswell/testing';
import { agentModelSync } from '../../support/model-path.js';

const SECRET = 'sk-live-4242-do-not-leak';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-record-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A workflow that is not durable, holding a redacted token that its prompt quotes. */
function build(model: ScriptedModel): () => Workflow<string> {
  const agent = createAgent({ name: 'writer', ...agentModelSync(model) });
  class Notes extends Workflow<string> {
    @ObservedState({ redact: true }) token = SECRET;

    @Step() async draft(): Promise<string> {
      const answer = await agent.prompt(createPrompt({ user: `Write a note; the key is ${this.token}.`, responseFormat: z.object({ note: z.string() }) }));
      return answer.note;
    }

    override async run(): Promise<string> {
      return this.draft();
    }
  }
  return () => new Notes('Notes');
}

describe('recordRun', () => {
  it('records a run that is not durable to one file, secrets masked, and the recording replays as the same', async () => {
    const live = new ScriptedModel(() => json({ note: 'done' }));
    const file = join(dir, 'notes.json');
    const recorded = await recordRun(build(live)(), { file, runId: 'n1' });
    expect(recorded).toMatchObject({ ok: true, result: 'done' });
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain(SECRET);
    expect((await readRecording(file)).calls).toHaveLength(1);
    const offline = new ScriptedModel([]);
    expect(await replayRun(file, { workflows: { Notes: build(offline) } })).toEqual({ same: true, result: 'done' });
    expect(offline.requests).toHaveLength(0);
  });

  it('writes the recording of a failed run too, and hands back the error', async () => {
    const failing = createWorkflow({ name: 'Boom' }, async (ctx) => ctx.step('explode', () => Promise.reject(new Error('boom'))));
    const recorded = await recordRun(failing, { file: join(dir, 'boom.json') });
    expect(recorded.ok).toBe(false);
    expect((await readRecording(join(dir, 'boom.json'))).run.status).toBe('failed');
  });
});
