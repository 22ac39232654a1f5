import { describe, expect, it } from 'vitest';
import { createWorkflow, Step, UsageError, Workflow, type Agent, type GoalAncestry, type WorkflowConfig } from 'groundswell';
import { ancestrySent, ask, okAgent, requestAt, whyBlockOf } from './helpers.js';

describe('functional workflows (createWorkflow config): nearest declaration per level wins', () => {
  it('three nested workflows: each agent call gets the chain above its own workflow', async () => {
    const { model, agent } = okAgent();
    const inner = createWorkflow({ name: 'inner', goal: 'Write the release notes' }, (ctx) =>
      ctx.step('write', () => agent.prompt(ask('inner'))),
    );
    const middle = createWorkflow({ name: 'middle', project: 'groundswell 2.0' }, async (ctx) => {
      await ctx.step('plan', () => agent.prompt(ask('middle')));
      await ctx.step('delegate', () => ctx.spawnWorkflow(inner));
    });
    const outer = createWorkflow(
      { name: 'outer', mission: 'Agents that know why they act', project: 'Company roadmap', goal: 'Ship the quarter' },
      async (ctx) => {
        await ctx.step('start', () => agent.prompt(ask('outer')));
        await ctx.step('spawn', () => ctx.spawnWorkflow(middle));
      },
    );
    await outer.run();

    expect(ancestrySent(requestAt(model, 'outer'))).toEqual({
      mission: 'Agents that know why they act',
      project: 'Company roadmap',
      goal: 'Ship the quarter',
    });
    // middle overrides project only; mission and goal come from outer
    expect(ancestrySent(requestAt(model, 'middle'))).toEqual({
      mission: 'Agents that know why they act',
      project: 'groundswell 2.0',
      goal: 'Ship the quarter',
    });
    // inner overrides goal; project is the nearest (middle's), not outer's
    expect(ancestrySent(requestAt(model, 'inner'))).toEqual({
      mission: 'Agents that know why they act',
      project: 'groundswell 2.0',
      goal: 'Write the release notes',
    });
  });

  it('a parentless workflow run inside a step mounts there and derives from that chain; a detached one does not', async () => {
    const { model, agent } = okAgent();
    const outer = createWorkflow({ name: 'outer', mission: 'Outer mission' }, async (ctx) => {
      await ctx.step('mounted', () =>
        createWorkflow({ name: 'mounted', goal: 'Mounted goal' }, (inner) => inner.step('ask', () => agent.prompt(ask('mounted')))).run(),
      );
      await ctx.step('detached', () =>
        createWorkflow({ name: 'detached', goal: 'Detached goal', detached: true }, (inner) =>
          inner.step('ask', () => agent.prompt(ask('detached'))),
        ).run(),
      );
    });
    await outer.run();
    expect(ancestrySent(requestAt(model, 'mounted'))).toEqual({ mission: 'Outer mission', goal: 'Mounted goal' });
    expect(ancestrySent(requestAt(model, 'detached'))).toEqual({ goal: 'Detached goal' });
  });

  it('a blank declaration does not hide the one above it', async () => {
    const { model, agent } = okAgent();
    const inner = createWorkflow({ name: 'inner', goal: '   ', project: '' }, (ctx) =>
      ctx.step('ask', () => agent.prompt(ask('inner'))),
    );
    const outer = createWorkflow({ name: 'outer', project: 'P', goal: 'G' }, (ctx) =>
      ctx.step('spawn', () => ctx.spawnWorkflow(inner)),
    );
    await outer.run();
    expect(ancestrySent(requestAt(model, 'inner'))).toEqual({ project: 'P', goal: 'G' });
  });

  it('a workflow with no declarations anywhere in its chain sends no section', async () => {
    const { model, agent } = okAgent({ system: 'You help.' });
    const inner = createWorkflow({ name: 'inner' }, (ctx) => ctx.step('ask', () => agent.prompt(ask('inner'))));
    const outer = createWorkflow({ name: 'outer' }, (ctx) => ctx.step('spawn', () => ctx.spawnWorkflow(inner)));
    await outer.run();
    expect(whyBlockOf(requestAt(model, 'inner'))).toBeUndefined();
    expect(requestAt(model, 'inner').body.system).toBe('You help.');
  });

  it('task is never derived: a workflow config object that carries one is refused at creation', () => {
    // A config built elsewhere (e.g. loaded from JSON) may carry keys WorkflowConfig does not have.
    const loaded = { name: 'loaded', goal: 'G', task: 'Derived task must not appear' };
    const config: WorkflowConfig = loaded;
    expect(() => createWorkflow(config, () => undefined)).toThrow(UsageError);
    expect(() => createWorkflow(config, () => undefined)).toThrow(/^Workflow "loaded": config has an unknown key "task"/);
  });
});

/** Class-based workflows declared through the config form `new MyWorkflow({ name, mission, ... }, parent)`. */
function classChain(agent: Agent) {
  class Leaf extends Workflow<void> {
    @Step()
    async write(): Promise<void> {
      await agent.prompt(ask(this.name));
    }

    override async run(): Promise<void> {
      await this.write();
    }
  }

  class Middle extends Workflow<void> {
    @Step()
    async plan(): Promise<void> {
      await agent.prompt(ask(this.name));
    }

    @Step()
    async delegate(): Promise<void> {
      // `this` as the parent argument attaches the child at once, under this running step.
      await new Leaf({ name: 'leaf', goal: 'Write the changelog' }, this).run();
    }

    override async run(): Promise<void> {
      await this.plan();
      await this.delegate();
    }
  }

  class Top extends Workflow<void> {
    @Step()
    async kickoff(): Promise<void> {
      await agent.prompt(ask(this.name));
      await new Middle({ name: 'middle', project: 'Docs site' }, this).run();
    }

    override async run(): Promise<void> {
      await this.kickoff();
    }
  }

  return { Top, Middle, Leaf };
}

describe('class-based workflows (config passed to the constructor)', () => {
  it('derive the same way: nearest declaration per level wins', async () => {
    const { model, agent } = okAgent();
    const { Top } = classChain(agent);
    await new Top({ name: 'top', mission: 'Make docs delightful', goal: 'Publish v1 docs' }).run();

    expect(ancestrySent(requestAt(model, 'top'))).toEqual({ mission: 'Make docs delightful', goal: 'Publish v1 docs' });
    expect(ancestrySent(requestAt(model, 'middle'))).toEqual({
      mission: 'Make docs delightful',
      project: 'Docs site',
      goal: 'Publish v1 docs',
    });
    expect(ancestrySent(requestAt(model, 'leaf'))).toEqual({
      mission: 'Make docs delightful',
      project: 'Docs site',
      goal: 'Write the changelog',
    });
  });

  it('mix with functional workflows in one chain', async () => {
    const { model, agent } = okAgent();
    const { Middle } = classChain(agent);
    const outer = createWorkflow({ name: 'outer', mission: 'Functional mission' }, (ctx) =>
      ctx.step('spawn', () => ctx.spawnWorkflow(new Middle({ name: 'middle', project: 'Class project' }))),
    );
    await outer.run();
    expect(ancestrySent(requestAt(model, 'middle'))).toEqual({ mission: 'Functional mission', project: 'Class project' });
    expect(ancestrySent(requestAt(model, 'leaf'))).toEqual({
      mission: 'Functional mission',
      project: 'Class project',
      goal: 'Write the changelog',
    });
  });

  it('a class-based child attached through the parent argument derives from that parent', async () => {
    const { model, agent } = okAgent();
    const { Leaf } = classChain(agent);
    const parent = createWorkflow({ name: 'parent', mission: 'M', project: 'P' }, () => undefined);
    const child = new Leaf({ name: 'child' }, parent);
    await child.run();
    expect(ancestrySent(requestAt(model, 'child'))).toEqual({ mission: 'M', project: 'P' });
  });
});

describe('explicit ancestry on the agent', () => {
  const derived = { name: 'flow', mission: 'Derived mission', project: 'Derived project', goal: 'Derived goal' };

  it('`goalAncestry` in the agent config wins per level; the other levels stay derived', async () => {
    const { model, agent } = okAgent({ goalAncestry: { goal: 'Explicit goal', task: 'Explicit task' } });
    await createWorkflow(derived, (ctx) => ctx.step('ask', () => agent.prompt(ask('flow')))).run();
    expect(ancestrySent(requestAt(model, 'flow'))).toEqual({
      mission: 'Derived mission',
      project: 'Derived project',
      goal: 'Explicit goal',
      task: 'Explicit task',
    });
  });

  it('config ancestry applies outside any workflow too', async () => {
    const { model, agent } = okAgent({ goalAncestry: { project: 'Standalone', task: 'Answer one question' } });
    await agent.prompt(ask('outside'));
    expect(ancestrySent(requestAt(model, 'outside'))).toEqual({ project: 'Standalone', task: 'Answer one question' });
    expect(agent.goalAncestry()).toEqual({ project: 'Standalone', task: 'Answer one question' });
  });

  it('setGoalAncestry() wins per level, replaces what was set before, and null brings the derived values back', async () => {
    const { model, agent } = okAgent({ goalAncestry: { goal: 'Config goal' } });
    await createWorkflow(derived, async (ctx) => {
      await ctx.step('1', () => agent.prompt(ask('config')));
      agent.setGoalAncestry({ project: 'Set project', task: 'Set task' });
      await ctx.step('2', () => agent.prompt(ask('set')));
      agent.setGoalAncestry(null);
      await ctx.step('3', () => agent.prompt(ask('cleared')));
    }).run();

    expect(ancestrySent(requestAt(model, 'config'))).toEqual({
      mission: 'Derived mission',
      project: 'Derived project',
      goal: 'Config goal',
    });
    // The set ancestry replaces the config one: the config goal is gone, the derived goal is back.
    expect(ancestrySent(requestAt(model, 'set'))).toEqual({
      mission: 'Derived mission',
      project: 'Set project',
      goal: 'Derived goal',
      task: 'Set task',
    });
    // null clears every explicit value (the config's too): only what the workflows declare is left.
    expect(ancestrySent(requestAt(model, 'cleared'))).toEqual({
      mission: 'Derived mission',
      project: 'Derived project',
      goal: 'Derived goal',
    });
  });

  it('setGoalAncestry(null) outside a workflow leaves no section at all', async () => {
    const { model, agent } = okAgent({ system: 'You help.', goalAncestry: { goal: 'G' } });
    agent.setGoalAncestry(null);
    await agent.prompt(ask('outside'));
    expect(requestAt(model, 'outside').body.system).toBe('You help.');
    expect(agent.goalAncestry()).toEqual({});
  });

  it('setGoalAncestry() keeps a copy: changing the object afterwards changes nothing', async () => {
    const { model, agent } = okAgent();
    const ancestry: GoalAncestry = { goal: 'Original goal' };
    agent.setGoalAncestry(ancestry);
    ancestry.goal = 'Mutated goal';
    await agent.prompt(ask('outside'));
    expect(ancestrySent(requestAt(model, 'outside'))).toEqual({ goal: 'Original goal' });
  });

  it('agent.goalAncestry() reports what a call made now would use', async () => {
    const { agent } = okAgent({ goalAncestry: { task: 'T' } });
    let inside: GoalAncestry | undefined;
    await createWorkflow(derived, (ctx) => ctx.step('peek', () => (inside = agent.goalAncestry()))).run();
    expect(inside).toEqual({ mission: 'Derived mission', project: 'Derived project', goal: 'Derived goal', task: 'T' });
    expect(agent.goalAncestry()).toEqual({ task: 'T' });
  });
});

describe('re-parenting', () => {
  it('a child moved to another parent derives from its new chain', async () => {
    const { model, agent } = okAgent();
    let runs = 0;
    const child = createWorkflow({ name: 'child', goal: 'Child goal' }, (ctx) => {
      runs += 1;
      return ctx.step('ask', () => agent.prompt(ask(`child run ${runs}`)));
    });
    const first = createWorkflow({ name: 'first', mission: 'First mission', project: 'First project' }, (ctx) =>
      ctx.step('spawn', () => ctx.spawnWorkflow(child)),
    );
    const second = createWorkflow({ name: 'second', mission: 'Second mission' }, (ctx) =>
      ctx.step('spawn', () => ctx.spawnWorkflow(child)),
    );

    await first.run();
    first.detachChild(child);
    await second.run();
    second.detachChild(child);
    await child.run();

    expect(ancestrySent(requestAt(model, 'child run 1'))).toEqual({
      mission: 'First mission',
      project: 'First project',
      goal: 'Child goal',
    });
    // No trace of the first parent's project: it is no longer in the chain.
    expect(ancestrySent(requestAt(model, 'child run 2'))).toEqual({ mission: 'Second mission', goal: 'Child goal' });
    // Detached: only its own declaration is left.
    expect(ancestrySent(requestAt(model, 'child run 3'))).toEqual({ goal: 'Child goal' });
  });

  it('attaching a parentless child to a parent changes what the child derives from then on', async () => {
    const { model, agent } = okAgent();
    let runs = 0;
    const child = createWorkflow({ name: 'child' }, (ctx) => {
      runs += 1;
      return ctx.step('ask', () => agent.prompt(ask(`run ${runs}`)));
    });
    await child.run();
    const parent = createWorkflow({ name: 'parent', project: 'Adopted project' }, () => undefined);
    parent.attachChild(child);
    await child.run();
    expect(whyBlockOf(requestAt(model, 'run 1'))).toBeUndefined();
    expect(ancestrySent(requestAt(model, 'run 2'))).toEqual({ project: 'Adopted project' });
  });
});
