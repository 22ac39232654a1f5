import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, type Agent, type Skill } from 'groundswell';
import { json, ScriptedModel, stream, toolUse, type RecordedRequest } from 'groundswell/testing';
import { record, eventsOfType } from '../support/events.js';
import { ancestrySent, ask, HEADING, okAgent, requestAt } from './helpers.js';

const SYSTEM = 'You are a careful release manager.';
const EPHEMERAL = { type: 'ephemeral' } as const;

/** Runs `fn` in one step of a workflow declaring `declared`. */
async function inWorkflow<R>(declared: { mission?: string; project?: string; goal?: string }, fn: () => Promise<R>): Promise<R> {
  return createWorkflow({ name: 'flow', ...declared }, (ctx) => ctx.step('ask', fn)).run();
}

function body(request: RecordedRequest): string {
  if (request.rawBody === undefined) throw new Error('expected a raw body');
  return request.rawBody;
}

describe('without any ancestry the request is exactly what it was before the feature', () => {
  it('is byte-for-byte the same outside a workflow, in a plain workflow, nested, or with blank declarations', async () => {
    const { model, agent } = okAgent({ name: 'writer', system: SYSTEM });
    const prompt = ask('same');
    await agent.prompt(prompt);
    await inWorkflow({}, () => agent.prompt(prompt));
    const inner = createWorkflow({ name: 'inner' }, (ctx) => ctx.step('ask', () => agent.prompt(prompt)));
    await createWorkflow({ name: 'outer' }, (ctx) => ctx.step('spawn', () => ctx.spawnWorkflow(inner))).run();
    await inWorkflow({ mission: '', project: '   ', goal: '\n' }, () => agent.prompt(prompt));

    expect(model.requests).toHaveLength(4);
    const [outside, ...others] = model.requests.map(body);
    for (const other of others) expect(other).toBe(outside);
    expect(model.requests[0]?.body.system).toBe(SYSTEM);
  });

  it('is byte-for-byte the same as a separate agent with the same config that never had an ancestry', async () => {
    const plain = okAgent({ name: 'writer', system: SYSTEM });
    const emptied = okAgent({ name: 'writer', system: SYSTEM, goalAncestry: {} });
    const cleared = okAgent({ name: 'writer', system: SYSTEM, goalAncestry: { goal: 'G' } });
    cleared.agent.setGoalAncestry(null);
    const blank = okAgent({ name: 'writer', system: SYSTEM, goalAncestry: { goal: ' ', task: '' } });

    await plain.agent.prompt(ask('same'));
    await inWorkflow({}, () => emptied.agent.prompt(ask('same')));
    await inWorkflow({}, () => cleared.agent.prompt(ask('same')));
    await blank.agent.prompt(ask('same'));

    const reference = body(requestAt(plain.model, 'same'));
    expect(body(requestAt(emptied.model, 'same'))).toBe(reference);
    expect(body(requestAt(cleared.model, 'same'))).toBe(reference);
    expect(body(requestAt(blank.model, 'same'))).toBe(reference);
    expect(reference).not.toContain('Why You');
  });

  it('sends the system as the plain string, and no system at all for an agent without one', async () => {
    const withSystem = okAgent({ system: SYSTEM });
    const without = okAgent();
    await inWorkflow({}, () => withSystem.agent.prompt(ask('a')));
    await inWorkflow({}, () => without.agent.prompt(ask('b')));
    expect(requestAt(withSystem.model, 'a').body.system).toBe(SYSTEM);
    expect('system' in requestAt(without.model, 'b').body).toBe(false);
    expect(body(requestAt(withSystem.model, 'a'))).not.toContain('cache_control');
  });
});

describe('with an ancestry the system is [identity, why] text blocks', () => {
  it('identity first, then the why section carrying cache_control', async () => {
    const { model, agent } = okAgent({ system: SYSTEM });
    await inWorkflow({ mission: 'Ship reliable software', goal: 'Cut release 2.0' }, () => agent.prompt(ask('flow')));
    expect(requestAt(model, 'flow').body.system).toEqual([
      { type: 'text', text: SYSTEM },
      {
        type: 'text',
        text: `${HEADING}\nMission: Ship reliable software\nGoal: Cut release 2.0`,
        cache_control: EPHEMERAL,
      },
    ]);
  });

  it('an agent without a system sends only the why block', async () => {
    const { model, agent } = okAgent();
    await inWorkflow({ project: 'groundswell' }, () => agent.prompt(ask('flow')));
    expect(requestAt(model, 'flow').body.system).toEqual([
      { type: 'text', text: `${HEADING}\nProject: groundswell`, cache_control: EPHEMERAL },
    ]);
  });

  it('an explicit ancestry outside any workflow produces the same blocks', async () => {
    const { model, agent } = okAgent({ system: SYSTEM, goalAncestry: { goal: 'Cut release 2.0' } });
    await agent.prompt(ask('outside'));
    expect(requestAt(model, 'outside').body.system).toEqual([
      { type: 'text', text: SYSTEM },
      { type: 'text', text: `${HEADING}\nGoal: Cut release 2.0`, cache_control: EPHEMERAL },
    ]);
  });

  it('skills stay in the identity block, before the why block', async () => {
    const skills: Skill[] = [{ name: 'changelog', description: 'How we write changelogs.', content: 'One line per change.' }];
    const withSystem = okAgent({ system: SYSTEM, skills });
    const skillsOnly = okAgent({ skills });
    await inWorkflow({ goal: 'Cut release 2.0' }, () => withSystem.agent.prompt(ask('a')));
    await inWorkflow({ goal: 'Cut release 2.0' }, () => skillsOnly.agent.prompt(ask('b')));
    const skillText = '# Skills\n\n## changelog\nHow we write changelogs.\n\nOne line per change.';
    const why = { type: 'text', text: `${HEADING}\nGoal: Cut release 2.0`, cache_control: EPHEMERAL };

    expect(requestAt(withSystem.model, 'a').body.system).toEqual([{ type: 'text', text: `${SYSTEM}\n\n${skillText}` }, why]);
    expect(requestAt(skillsOnly.model, 'b').body.system).toEqual([{ type: 'text', text: skillText }, why]);
  });

  it("a prompt's own system is the identity block", async () => {
    const { model, agent } = okAgent({ system: SYSTEM });
    const prompt = createPrompt({ user: 'asked at prompt', system: 'You only write haiku.', responseFormat: z.object({ ok: z.boolean() }) });
    await inWorkflow({ goal: 'Delight users' }, () => agent.prompt(prompt));
    expect(requestAt(model, 'prompt').body.system).toEqual([
      { type: 'text', text: 'You only write haiku.' },
      { type: 'text', text: `${HEADING}\nGoal: Delight users`, cache_control: EPHEMERAL },
    ]);
  });

  it('every turn of a tool loop sends the same system blocks, so the API can reuse its prompt cache', async () => {
    const model = new ScriptedModel([toolUse('add', { a: 2, b: 3 }), json({ ok: true })]);
    const add = defineTool({
      name: 'add',
      description: 'Adds two numbers.',
      input: z.object({ a: z.number(), b: z.number() }),
      execute: ({ a, b }) => a + b,
    });
    const agent = createAgent({ name: 'calc', system: SYSTEM, tools: [add], client: model.client() });
    await inWorkflow({ goal: 'Add numbers' }, () => agent.prompt(ask('loop')));
    expect(model.requests).toHaveLength(2);
    expect(model.requests[1]?.body.system).toEqual(model.requests[0]?.body.system);
    expect(ancestrySent(model.requests[1] as RecordedRequest)).toEqual({ goal: 'Add numbers' });
    expect(agent.promptSectionStats.rendered).toBe(1);
    model.assertComplete();
  });

  it('a streamed call sends the same section', async () => {
    const model = new ScriptedModel([stream(json({ ok: true }))]);
    const agent = createAgent({ name: 'streamer', system: SYSTEM, client: model.client() });
    const value = await inWorkflow({ project: 'Streaming' }, () => agent.stream(ask('stream')).finalValue());
    expect(value).toEqual({ ok: true });
    expect(model.requests[0]?.stream).toBe(true);
    expect(model.requests[0]?.body.system).toEqual([
      { type: 'text', text: SYSTEM },
      { type: 'text', text: `${HEADING}\nProject: Streaming`, cache_control: EPHEMERAL },
    ]);
  });
});

describe('the section is memoised on its inputs', () => {
  it('unchanged ancestry renders once and is reused; a changed goal renders again', async () => {
    const { model, agent } = okAgent({ system: SYSTEM });
    expect(agent.promptSectionStats).toEqual({ rendered: 0, reused: 0 });

    await inWorkflow({ project: 'P', goal: 'First goal' }, async () => {
      await agent.prompt(ask('1'));
      await agent.prompt(ask('2'));
      await agent.prompt(ask('3'));
    });
    expect(agent.promptSectionStats).toEqual({ rendered: 1, reused: 2 });

    // Another workflow declaring the same values: same inputs, still reused.
    await inWorkflow({ project: 'P', goal: 'First goal' }, () => agent.prompt(ask('4')));
    expect(agent.promptSectionStats).toEqual({ rendered: 1, reused: 3 });

    await inWorkflow({ project: 'P', goal: 'Second goal' }, () => agent.prompt(ask('5')));
    expect(agent.promptSectionStats).toEqual({ rendered: 2, reused: 3 });

    // The reused section is exactly the rendered one.
    const first = requestAt(model, '1').body.system;
    for (const where of ['2', '3', '4']) expect(requestAt(model, where).body.system).toEqual(first);
    expect(ancestrySent(requestAt(model, '5'))).toEqual({ project: 'P', goal: 'Second goal' });
  });

  it('setGoalAncestry with new values renders again; back to earlier values is reused', async () => {
    const { agent } = okAgent();
    agent.setGoalAncestry({ goal: 'A' });
    await agent.prompt(ask('a1'));
    await agent.prompt(ask('a2'));
    agent.setGoalAncestry({ goal: 'B' });
    await agent.prompt(ask('b'));
    expect(agent.promptSectionStats).toEqual({ rendered: 2, reused: 1 });
    agent.setGoalAncestry({ goal: 'A' });
    await agent.prompt(ask('a3'));
    expect(agent.promptSectionStats).toEqual({ rendered: 2, reused: 2 });
  });

  it('each agent keeps its own memo', async () => {
    const one = okAgent().agent;
    const two = okAgent().agent;
    await inWorkflow({ goal: 'G' }, async () => {
      await one.prompt(ask('one'));
      await two.prompt(ask('two'));
      await two.prompt(ask('two again'));
    });
    expect(one.promptSectionStats).toEqual({ rendered: 1, reused: 0 });
    expect(two.promptSectionStats).toEqual({ rendered: 1, reused: 1 });
  });
});

describe('the ancestry is part of the cache key', () => {
  async function cachedCall(agent: Agent, goal: string): Promise<{ cached: boolean; events: string[] }> {
    const workflow = createWorkflow({ name: `flow ${goal}`, goal }, (ctx) => ctx.step('ask', () => agent.execute(ask('cached'))));
    const recording = record(workflow);
    const result = await workflow.run();
    const events = [...eventsOfType(recording.events, 'cacheHit'), ...eventsOfType(recording.events, 'cacheMiss')].map((e) => e.type);
    return { cached: result.cached, events };
  }

  it('the same prompt under two different goals misses twice; the same goal again hits', async () => {
    const model = new ScriptedModel(() => json({ ok: true }));
    const agent = createAgent({ name: 'cacher', system: SYSTEM, enableCache: true, client: model.client() });

    expect(await cachedCall(agent, 'Goal A')).toEqual({ cached: false, events: ['cacheMiss'] });
    expect(await cachedCall(agent, 'Goal B')).toEqual({ cached: false, events: ['cacheMiss'] });
    expect(model.requests).toHaveLength(2);
    expect(await cachedCall(agent, 'Goal A')).toEqual({ cached: true, events: ['cacheHit'] });
    expect(await cachedCall(agent, 'Goal B')).toEqual({ cached: true, events: ['cacheHit'] });
    expect(model.requests).toHaveLength(2);
    expect(model.requests.map((request) => ancestrySent(request).goal)).toEqual(['Goal A', 'Goal B']);
  });

  it('a call with an ancestry does not hit the answer cached for the same prompt without one', async () => {
    const model = new ScriptedModel(() => json({ ok: true }));
    const agent = createAgent({ name: 'cacher', system: SYSTEM, enableCache: true, client: model.client() });
    const first = await agent.execute(ask('cached'));
    const second = await inWorkflow({ mission: 'M' }, () => agent.execute(ask('cached')));
    const third = await agent.execute(ask('cached'));
    expect([first.cached, second.cached, third.cached]).toEqual([false, false, true]);
    expect(model.requests).toHaveLength(2);
  });
});
