import { describe, expect, it } from 'vitest';
import { createWorkflow, WorkflowCancelledError, WorkflowError, type WorkflowNode } from 'groundswell';
import { allNodes, findByName, flush } from '../support/core-helpers.js';
import { deferred } from '../support/deferred.js';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';

function statusesOf(root: WorkflowNode): Record<string, string> {
  return Object.fromEntries(allNodes(root).map((n) => [n.name, n.status]));
}

describe('workflow.cancel()', () => {
  function buildTree() {
    const childStarted = deferred();
    const gate = deferred();
    const executed: string[] = [];
    const child = createWorkflow({ name: 'child' }, async (ctx) => {
      await ctx.step('child-wait', async () => {
        childStarted.resolve();
        await gate.promise;
        executed.push('child-wait body finished');
      });
      executed.push('child after first step');
      await ctx.step('child-after', () => executed.push('child-after'));
    });
    const root = createWorkflow({ name: 'root', clock: new FakeClock() }, async (ctx) => {
      await ctx.step('done-before', () => executed.push('done-before'));
      await ctx.step('outer', () => ctx.spawnWorkflow(child));
      executed.push('root after outer');
      await ctx.step('after', () => executed.push('after'));
      return 'finished';
    });
    return { root, child, childStarted, gate, executed };
  }

  it('moves every running node to cancelled, aborts the signals and rejects run() with WorkflowCancelledError', async () => {
    const { root, child, childStarted, gate, executed } = buildTree();
    const rec = record(root);
    const running = root.run();
    await childStarted.promise;
    expect(statusesOf(root.node)).toEqual({
      root: 'running',
      'done-before': 'completed',
      outer: 'running',
      child: 'running',
      'child-wait': 'running',
    });

    root.cancel('user pressed stop');

    // At once, before anything settles.
    expect(statusesOf(root.node)).toEqual({
      root: 'cancelled',
      'done-before': 'completed',
      outer: 'cancelled',
      child: 'cancelled',
      'child-wait': 'cancelled',
    });
    expect(root.signal.aborted).toBe(true);
    expect(child.signal.aborted).toBe(true);
    expect(root.signal.reason).toBeInstanceOf(WorkflowCancelledError);
    expect(root.isCancelled).toBe(true);
    expect(child.isCancelled).toBe(true);
    expect(eventsOfType(rec.events, 'cancelled').map((e) => [e.nodeId, e.reason])).toEqual([[root.id, 'user pressed stop']]);

    gate.resolve();
    const error = await running.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(WorkflowCancelledError);
    expect(error).toBeInstanceOf(WorkflowError);
    expect((error as WorkflowCancelledError).message).toContain('user pressed stop');

    // The body that was already running finished, but nothing after it ran.
    expect(executed).toEqual(['done-before', 'child-wait body finished']);
    // Statuses stay cancelled once everything has settled; no new nodes appeared.
    expect(statusesOf(root.node)).toEqual({
      root: 'cancelled',
      'done-before': 'completed',
      outer: 'cancelled',
      child: 'cancelled',
      'child-wait': 'cancelled',
    });
    expect(eventsOfType(rec.events, 'stepEnd').map((e) => [e.name, e.status])).toEqual([
      ['done-before', 'completed'],
      ['child-wait', 'cancelled'],
      ['outer', 'cancelled'],
    ]);
    expect(eventsOfType(rec.events, 'workflowEnd').map((e) => [e.name, e.status])).toEqual([
      ['child', 'cancelled'],
      ['root', 'cancelled'],
    ]);
  });

  it('refuses later steps even when the executor swallows the cancellation', async () => {
    const started = deferred();
    const gate = deferred();
    let laterBodies = 0;
    const refusals: unknown[] = [];
    const wf = createWorkflow({ name: 'stubborn' }, async (ctx) => {
      try {
        await ctx.step('wait', async () => {
          started.resolve();
          await gate.promise;
        });
      } catch {
        // ignore and try to carry on
      }
      for (let i = 0; i < 3; i += 1) {
        try {
          await ctx.step(`later-${i}`, () => (laterBodies += 1));
        } catch (error) {
          refusals.push(error);
        }
      }
      return 'carried on';
    });
    const running = wf.run();
    await started.promise;
    wf.cancel();
    gate.resolve();
    await expect(running).rejects.toBeInstanceOf(WorkflowCancelledError);
    expect(laterBodies).toBe(0);
    expect(refusals).toHaveLength(3);
    expect(refusals.every((e) => e instanceof WorkflowCancelledError)).toBe(true);
    expect(wf.node.children.map((n) => n.name)).toEqual(['wait']);
    expect(wf.status).toBe('cancelled');
  });

  it('aborts the signal handed to a step so pending work can stop at once', async () => {
    const started = deferred();
    let abortedWith: unknown;
    const wf = createWorkflow({ name: 'fetcher' }, (ctx) =>
      ctx.step('fetch', async () => {
        started.resolve();
        await new Promise<never>((_, reject) =>
          ctx.signal.addEventListener('abort', () => {
            abortedWith = ctx.signal.reason;
            reject(ctx.signal.reason);
          }),
        );
      }),
    );
    const running = wf.run();
    await started.promise;
    wf.cancel('timeout');
    await expect(running).rejects.toBeInstanceOf(WorkflowCancelledError);
    expect(abortedWith).toBeInstanceOf(WorkflowCancelledError);
    expect(findByName(wf.node, 'fetch').status).toBe('cancelled');
  });

  it('cancelling a workflow that never started makes run() reject without running anything', async () => {
    let ran = false;
    const wf = createWorkflow({ name: 'idle' }, () => {
      ran = true;
    });
    wf.cancel();
    await expect(wf.run()).rejects.toBeInstanceOf(WorkflowCancelledError);
    expect(ran).toBe(false);
  });

  it('stops retrying when cancelled during a retry backoff', async () => {
    const clock = new FakeClock({ autoAdvance: false });
    let attempts = 0;
    const wf = createWorkflow({ name: 'retrier', clock }, (ctx) =>
      ctx.step(
        'flaky',
        () => {
          attempts += 1;
          throw new Error(`attempt ${attempts} failed`);
        },
        { retry: { maxAttempts: 5, backoffMs: 1_000 } },
      ),
    );
    const inBackoff = deferred();
    wf.addObserver({ onEvent: (e) => (e.type === 'stepRetry' ? inBackoff.resolve() : undefined) });
    const rec = record(wf);

    const running = wf.run();
    await inBackoff.promise;
    expect(clock.pendingSleeps).toBe(1);
    wf.cancel('enough');
    await expect(running).rejects.toBeInstanceOf(WorkflowCancelledError);

    // Even when the backoff would have elapsed, no further attempt happens.
    clock.advance(60_000);
    await flush();
    expect(attempts).toBe(1);
    expect(clock.pendingSleeps).toBe(0);
    expect(eventsOfType(rec.events, 'stepRetry')).toHaveLength(1);
    expect(eventsOfType(rec.events, 'stepEnd').map((e) => [e.status, e.attempts])).toEqual([['cancelled', 1]]);
    expect(findByName(wf.node, 'flaky').status).toBe('cancelled');
  });

  it('never retries a step failing because of the cancellation', async () => {
    const started = deferred();
    const gate = deferred();
    let attempts = 0;
    const clock = new FakeClock();
    const wf = createWorkflow({ name: 'w', clock }, (ctx) =>
      ctx.step(
        'once',
        async () => {
          attempts += 1;
          started.resolve();
          await gate.promise;
          throw new Error('failed after cancel');
        },
        { retry: { maxAttempts: 3 } },
      ),
    );
    const running = wf.run();
    await started.promise;
    wf.cancel();
    gate.resolve();
    await expect(running).rejects.toBeInstanceOf(WorkflowCancelledError);
    expect(attempts).toBe(1);
    expect(clock.sleeps).toEqual([]);
  });

  it('cancelling a child stops the child and its subtree only', async () => {
    const started = deferred();
    const gate = deferred();
    const child = createWorkflow({ name: 'child' }, (ctx) =>
      ctx.step('child-wait', async () => {
        started.resolve();
        await gate.promise;
      }),
    );
    let siblingRan = false;
    const root = createWorkflow({ name: 'root' }, async (ctx) => {
      await ctx.step('host', () => ctx.spawnWorkflow(child)).catch((e: unknown) => e);
      await ctx.step('sibling', () => (siblingRan = true));
      return 'root finished';
    });
    const running = root.run();
    await started.promise;
    child.cancel();
    expect(root.isCancelled).toBe(false);
    expect(root.signal.aborted).toBe(false);
    expect(child.status).toBe('cancelled');
    gate.resolve();
    await expect(running).resolves.toBe('root finished');
    expect(siblingRan).toBe(true);
    expect(root.status).toBe('completed');
    expect(findByName(root.node, 'child-wait').status).toBe('cancelled');
  });

  it('settles a workflow cancelled before it ran: status cancelled, run() refused', async () => {
    let ran = false;
    const wf = createWorkflow({ name: 'never' }, async () => {
      ran = true;
    });
    wf.cancel('shutting down');
    expect(wf.status).toBe('cancelled');
    await expect(wf.run()).rejects.toBeInstanceOf(WorkflowCancelledError);
    expect(ran).toBe(false);
    expect(wf.status).toBe('cancelled');
  });
});
