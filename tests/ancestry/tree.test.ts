import { describe, expect, it } from 'vitest';
import { createWorkflow, exportRun, WorkflowTreeDebugger, type Workflow, type WorkflowNode } from 'groundswell';
import { allNodes, must } from '../support/core-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { ask, okAgent } from './helpers.js';

function promptNodes(root: WorkflowNode): WorkflowNode[] {
  return allNodes(root).filter((node) => node.kind === 'agentPrompt');
}

/** A tree-string line without its box-drawing indentation. */
function bare(line: string): string {
  return line.replace(/^[\s│├└─]+/, '');
}

/** The `why …` lines of a tree string, without indentation. */
function whyLines(tree: string): string[] {
  return tree.split('\n').map(bare).filter((line) => line.startsWith('why '));
}

function startOf(node: WorkflowNode) {
  return must(eventsOfType(node.events, 'agentPromptStart')[0], `agentPromptStart on ${node.name}`);
}

/** outer (mission, project) → step → inner (goal) → step → agent call; plus one call in outer. */
async function nestedRun(): Promise<Workflow<void>> {
  const { agent } = okAgent({ name: 'writer' });
  const inner = createWorkflow({ name: 'inner', goal: 'Write the changelog' }, async (ctx) => {
    await ctx.step('write', () => agent.prompt(ask('inner')));
  });
  const outer = createWorkflow<void>({ name: 'outer', mission: 'Ship 2.0', project: 'groundswell' }, async (ctx) => {
    await ctx.step('plan', () => agent.prompt(ask('outer')));
    await ctx.step('delegate', () => ctx.spawnWorkflow(inner));
  });
  await outer.run();
  return outer;
}

describe('the tree records the ancestry each agent call used', () => {
  it("agentPromptStart carries the call's goalAncestry, on the agentPrompt node and to root observers", async () => {
    const { agent } = okAgent({ name: 'writer', goalAncestry: { task: 'Explicit task' } });
    const workflow = createWorkflow({ name: 'flow', mission: 'M', goal: 'G' }, (ctx) => ctx.step('ask', () => agent.prompt(ask('flow'))));
    const recording = record(workflow);
    await workflow.run();

    const [node] = promptNodes(workflow.node);
    expect(startOf(must(node, 'the agentPrompt node')).goalAncestry).toEqual({ mission: 'M', goal: 'G', task: 'Explicit task' });
    const observed = eventsOfType(recording.events, 'agentPromptStart');
    expect(observed.map((event) => event.goalAncestry)).toEqual([{ mission: 'M', goal: 'G', task: 'Explicit task' }]);
  });

  it('records what was sent: cleaned and capped, not the raw declaration', async () => {
    const { agent } = okAgent();
    const workflow = createWorkflow({ name: 'flow', goal: `  Multi\nline ${'g'.repeat(300)}` }, (ctx) =>
      ctx.step('ask', () => agent.prompt(ask('flow'))),
    );
    await workflow.run();
    const recorded = startOf(must(promptNodes(workflow.node)[0], 'the agentPrompt node')).goalAncestry;
    expect(recorded?.goal).toBe(`Multi line ${'g'.repeat(186)}...`);
    expect(recorded?.goal).toHaveLength(200);
  });

  it('each call of a nested run records its own chain', async () => {
    const outer = await nestedRun();
    const byName = new Map(promptNodes(outer.node).map((node) => [node.name, startOf(node).goalAncestry]));
    expect(byName).toEqual(
      new Map([
        ['writer: outer', { mission: 'Ship 2.0', project: 'groundswell' }],
        ['writer: inner', { mission: 'Ship 2.0', project: 'groundswell', goal: 'Write the changelog' }],
      ]),
    );
  });

  it('without an ancestry the event has no goalAncestry field at all', async () => {
    const { agent } = okAgent();
    const workflow = createWorkflow({ name: 'plain' }, (ctx) => ctx.step('ask', () => agent.prompt(ask('plain'))));
    await workflow.run();
    const start = startOf(must(promptNodes(workflow.node)[0], 'the agentPrompt node'));
    expect('goalAncestry' in start).toBe(false);
    expect(JSON.stringify(exportRun(workflow.node))).not.toContain('goalAncestry');
  });
});

describe('WorkflowTreeDebugger shows a why line under each prompt node', () => {
  it('prints `why Mission: … · Project: … · Goal: …` right under the agentPrompt line', async () => {
    const outer = await nestedRun();
    const lines = new WorkflowTreeDebugger(outer).toTreeString().split('\n');

    for (const [name, why] of [
      ['writer: outer', 'why Mission: Ship 2.0 · Project: groundswell'],
      ['writer: inner', 'why Mission: Ship 2.0 · Project: groundswell · Goal: Write the changelog'],
    ] as const) {
      const at = lines.findIndex((line) => line.includes(`${name} [agentPrompt]`));
      expect(at, `prompt line for ${name}`).toBeGreaterThanOrEqual(0);
      const next = must(lines[at + 1], `the line after ${name}`);
      expect(bare(next)).toBe(why);
      // indented under the prompt node, deeper than the prompt line's own marker
      expect(next.indexOf('why')).toBeGreaterThan(lines[at]?.indexOf(name) ?? Number.MAX_SAFE_INTEGER);
    }
    expect(whyLines(lines.join('\n'))).toHaveLength(2);
  });

  it('shows a Task level set explicitly', async () => {
    const { agent } = okAgent({ name: 'writer', goalAncestry: { task: 'Draft section 2' } });
    const workflow = createWorkflow({ name: 'flow', goal: 'Write docs' }, (ctx) => ctx.step('ask', () => agent.prompt(ask('flow'))));
    await workflow.run();
    const tree = new WorkflowTreeDebugger(workflow).toTreeString();
    expect(whyLines(tree)).toEqual(['why Goal: Write docs · Task: Draft section 2']);
  });

  it('no ancestry → no why line', async () => {
    const { agent } = okAgent();
    const workflow = createWorkflow({ name: 'plain' }, (ctx) => ctx.step('ask', () => agent.prompt(ask('plain'))));
    await workflow.run();
    const tree = new WorkflowTreeDebugger(workflow).toTreeString();
    expect(tree).not.toContain('why');
    expect(tree.split('\n')).toHaveLength(3); // workflow, step, agentPrompt
  });
});

describe('the exported run keeps the ancestry', () => {
  it('exportRun → JSON text → loaded debugger: same goalAncestry events and the same why lines', async () => {
    const outer = await nestedRun();
    const text = JSON.stringify(exportRun(outer.node));
    const loaded = new WorkflowTreeDebugger(text);

    const loadedStarts = promptNodes(loaded.getTree()).map((node) => startOf(node).goalAncestry);
    expect(loadedStarts).toEqual(promptNodes(outer.node).map((node) => startOf(node).goalAncestry));
    expect(loadedStarts).toContainEqual({ mission: 'Ship 2.0', project: 'groundswell', goal: 'Write the changelog' });

    const live = whyLines(new WorkflowTreeDebugger(outer).toTreeString());
    expect(live).toHaveLength(2);
    expect(whyLines(loaded.toTreeString())).toEqual(live);
  });

  it('a loaded debugger replays agentPromptStart events with their goalAncestry', async () => {
    const outer = await nestedRun();
    const loaded = WorkflowTreeDebugger.fromJSON(exportRun(outer.node));
    const replayed: unknown[] = [];
    loaded.events.subscribe({
      next: (event) => {
        if (event.type === 'agentPromptStart') replayed.push(event.goalAncestry);
      },
    });
    expect(replayed).toEqual(
      expect.arrayContaining([
        { mission: 'Ship 2.0', project: 'groundswell' },
        { mission: 'Ship 2.0', project: 'groundswell', goal: 'Write the changelog' },
      ]),
    );
    expect(replayed).toHaveLength(2);
  });
});
