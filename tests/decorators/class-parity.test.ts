import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, Step, Workflow, WorkflowTreeDebugger } from 'groundswell';
import { json, ScriptedModel } from 'groundswell/testing';
import { eventsOfType, record } from '../support/events.js';

const Title = z.object({ title: z.string() });

// A class workflow has what a functional one has on ctx: the last agent result, replacing it,
// and the reflection guidance of the step running now.
class Titles extends Workflow<string> {
  readonly seen: Array<{ last: unknown; guidance: readonly string[] }> = [];
  private readonly agent = createAgent({
    name: 'writer',
    client: new ScriptedModel([json({ title: 'Draft' }), json({ title: 'A much better title' })]).client(),
  });

  @Step() async draft(): Promise<void> {
    await this.agent.prompt(createPrompt({ name: 'draft', user: 'Write a title.', responseFormat: Title }));
    this.seen.push({ last: this.lastPromptResult, guidance: this.reflection.guidance });
  }

  @Step() async improve(): Promise<string> {
    const better = await this.replaceLastPromptResult(createPrompt({ name: 'better', user: 'Longer.', responseFormat: Title }), this.agent);
    this.seen.push({ last: this.lastPromptResult, guidance: this.reflection.guidance });
    return better.title;
  }

  override async run(): Promise<string> {
    await this.draft();
    return this.improve();
  }
}

describe('class workflows: lastPromptResult, replaceLastPromptResult, reflection', () => {
  it('replace the last agent call in place and read the new value, as ctx does', async () => {
    const wf = new Titles('titles');
    const recording = record(wf);
    expect(await wf.run()).toBe('A much better title');
    expect(wf.seen).toEqual([
      { last: { title: 'Draft' }, guidance: [] },
      { last: { title: 'A much better title' }, guidance: [] },
    ]);
    expect(eventsOfType(recording.events, 'promptReplaced')).toHaveLength(1);
    // The new call took the old one's place (under the draft step), the old one hangs beneath it.
    const tree = new WorkflowTreeDebugger(wf).toTreeString();
    expect(tree).toMatch(/draft \[step\][\s\S]*writer: better[\s\S]*writer: draft/);
  });
});
