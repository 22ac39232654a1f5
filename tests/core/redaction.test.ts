import { describe, expect, it } from 'vitest';
import {
  createWorkflow,
  exportRun,
  ObservedState,
  REDACTED,
  Workflow,
  WorkflowError,
  WorkflowTreeDebugger,
  type StateSnapshot,
  type WorkflowNode,
} from 'groundswell';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';

const SECRET = 'sk-live-SUPERSECRET-42';
const NESTED_SECRET = 'nested-SECRET-pw';
const HIDDEN = 'HIDDEN-SCRATCH-VALUE';

class Vault extends Workflow<string> {
  @ObservedState() visible = 'public-value';
  @ObservedState() counter = 0;
  @ObservedState({ redact: true }) apiKey = SECRET;
  @ObservedState({ redact: true }) credentials = { user: 'bob', password: NESTED_SECRET };
  @ObservedState({ hidden: true }) scratch = HIDDEN;
  @ObservedState({ hidden: true, redact: true }) both = `${SECRET}-both`;
}

function expectClean(text: string, where: string): void {
  for (const forbidden of [SECRET, NESTED_SECRET, HIDDEN]) {
    expect(text.includes(forbidden), `${where} leaks ${forbidden}`).toBe(false);
  }
}

/** A vault that snapshots in a step, spawns a child vault, logs its own snapshot, then fails. */
function buildRun(): { root: Vault; child: Vault; states: StateSnapshot[]; updated: WorkflowNode[] } {
  const clock = new FakeClock({ tick: 1 });
  const child: Vault = new Vault({ name: 'child-vault' }, async (ctx) => {
    await ctx.step('child-step', () => (child.counter = 5), { snapshotState: true });
    return 'child done';
  });
  const root: Vault = new Vault({ name: 'root-vault', clock }, async (ctx) => {
    await ctx.step('prepare', () => (root.counter = 1), { snapshotState: true });
    await ctx.step('spawn', () => ctx.spawnWorkflow(child));
    ctx.logger.info('snapshot taken', root.snapshotState());
    root.apiKey = `${SECRET}-rotated`;
    await ctx.step('explode', () => {
      throw new Error('exploded');
    });
    return 'never';
  });
  const states: StateSnapshot[] = [];
  const updated: WorkflowNode[] = [];
  root.addObserver({
    onEvent: (e) => {
      if (e.type === 'stateSnapshot') states.push(e.state);
    },
    onStateUpdated: (node) => updated.push(node),
  });
  return { root, child, states, updated };
}

async function runToFailure(root: Workflow): Promise<WorkflowError> {
  try {
    await root.run();
  } catch (error) {
    return error as WorkflowError;
  }
  throw new Error('expected failure');
}

describe('redaction', () => {
  it('snapshotState() shows redacted fields as *** and leaves hidden fields out', () => {
    const vault = new Vault('v');
    const state = vault.snapshotState();
    expect(REDACTED).toBe('***');
    expect(state).toEqual({ visible: 'public-value', counter: 0, apiKey: '***', credentials: '***' });
    expect(Object.keys(state)).not.toContain('scratch');
    expect(Object.keys(state)).not.toContain('both');
    expect(vault.node.stateSnapshot).toEqual(state);
    expectClean(JSON.stringify(state), 'snapshot');
  });

  it('keeps secrets out of stateSnapshot events and onStateUpdated nodes', async () => {
    const { root, states, updated } = buildRun();
    await runToFailure(root);
    expect(states.length).toBeGreaterThanOrEqual(3);
    for (const state of states) {
      expect(state.apiKey).toBe('***');
      expect(state.credentials).toBe('***');
      expect(state).not.toHaveProperty('scratch');
    }
    expectClean(JSON.stringify(states), 'stateSnapshot events');
    expectClean(JSON.stringify(updated.map((n) => n.stateSnapshot)), 'onStateUpdated');
    expectClean(JSON.stringify(eventsOfType([...root.node.events], 'stateSnapshot')), 'stored events');
  });

  it('keeps secrets out of WorkflowError.state and the JSON of the error', async () => {
    const { root } = buildRun();
    const error = await runToFailure(root);
    expect(error).toBeInstanceOf(WorkflowError);
    expect(error.state).toEqual({ visible: 'public-value', counter: 1, apiKey: '***', credentials: '***' });
    expectClean(JSON.stringify(error), 'JSON of the error');
    expectClean(JSON.stringify(error.logs), 'error logs');
  });

  it('keeps secrets out of the debugger tree and log strings', async () => {
    const { root } = buildRun();
    await runToFailure(root);
    const dbg = new WorkflowTreeDebugger(root);
    const tree = dbg.toTreeString();
    const logs = dbg.toLogString();
    // The state is shown, just redacted.
    expect(tree).toContain('"apiKey":"***"');
    expect(tree).toContain('public-value');
    expect(logs).toContain('snapshot taken');
    expectClean(tree, 'toTreeString');
    expectClean(logs, 'toLogString');
  });

  it('keeps secrets out of toJSON, exportRun and reloaded exports', async () => {
    const { root, child } = buildRun();
    await runToFailure(root);
    expectClean(JSON.stringify(root.toJSON()), 'workflow.toJSON()');
    expectClean(JSON.stringify(child.toJSON()), 'child.toJSON()');
    const exported = JSON.stringify(exportRun(root.node));
    expectClean(exported, 'exportRun');
    const dbg = new WorkflowTreeDebugger(root);
    expectClean(JSON.stringify(dbg.toJSON()), 'debugger.toJSON()');
    const loaded = WorkflowTreeDebugger.fromJSON(exported);
    expectClean(loaded.toTreeString(), 'reloaded toTreeString');
    expect(loaded.toTreeString()).toBe(dbg.toTreeString());
  });

  it('redacts a field even when a functional executor updates it between snapshots', async () => {
    const wf: Vault = new Vault({ name: 'v' }, async (ctx) => {
      for (const value of ['first-SECRET-a', 'second-SECRET-b']) {
        await ctx.step(`set ${value.slice(0, 5)}`, () => (wf.apiKey = value), { snapshotState: true });
      }
      return 'ok';
    });
    const rec = record(wf);
    await wf.run();
    const text = JSON.stringify([rec.events, wf.toJSON(), new WorkflowTreeDebugger(wf).toTreeString()]);
    expect(text).not.toContain('SECRET-a');
    expect(text).not.toContain('SECRET-b');
  });

  it('a workflow without observed state snapshots to {}', async () => {
    const wf = createWorkflow({ name: 'plain' }, () => 1);
    expect(wf.snapshotState()).toEqual({});
    await wf.run();
    expect(wf.node.stateSnapshot).toEqual({});
  });
});
