import { describe, expect, it } from 'vitest';
import {
  createWorkflow,
  GroundswellError,
  isRetryable,
  isWorkflowError,
  ObservedState,
  Step,
  UsageError,
  Workflow,
  WorkflowError,
  type RetryOptions,
} from 'groundswell';
import { failureOf, findByName, must } from '../support/core-helpers.js';
import { eventsOfType, record } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';

class Stateful extends Workflow<string> {
  @ObservedState() count = 0;
  @ObservedState() label = 'initial';
  @ObservedState({ redact: true }) token = 'tok-SECRET-1';
  @ObservedState({ hidden: true }) internal = 'hidden-value';
}

function failingStateful(): Stateful {
  const wf: Stateful = new Stateful({ name: 'stateful' }, async (ctx) => {
    wf.count = 3;
    wf.label = 'working';
    ctx.logger.info('about to start', { n: 1 });
    await ctx.step('outer', async () => {
      ctx.logger.warn('in outer');
      await ctx.step('inner', () => {
        wf.count = 4;
        ctx.logger.error('inner gives up');
        throw new Error('boom');
      });
    });
    return 'never';
  });
  return wf;
}

describe('WorkflowError', () => {
  it('is an Error and a GroundswellError carrying workflowId, nodeId, cause/original, state and logs', async () => {
    const wf = failingStateful();
    const error = await failureOf(wf.run());

    expect(error).toBeInstanceOf(Error);
    expect(error).toBeInstanceOf(GroundswellError);
    expect(isWorkflowError(error)).toBe(true);
    expect(error.name).toBe('WorkflowError');
    expect(error.message).toContain('inner');
    expect(error.message).toContain('boom');
    expect(typeof error.stack).toBe('string');
    expect(error.workflowId).toBe(wf.id);
    expect(error.nodeId).toBe(findByName(wf.node, 'inner').id);
    expect(error.cause).toBeInstanceOf(Error);
    expect((error.cause as Error).message).toBe('boom');
    expect(error.original).toBe(error.cause);
    // The observed state at the moment of failure, redacted, hidden fields left out.
    expect(error.state).toEqual({ count: 4, label: 'working', token: '***' });
    // The logs written before the failure.
    expect(error.logs.map((l) => [l.level, l.message])).toEqual([
      ['info', 'about to start'],
      ['warn', 'in outer'],
      ['error', 'inner gives up'],
    ]);
    expect(error.logs[0]?.data).toEqual({ n: 1 });
  });

  it('serialises to JSON with state, logs and the cause, and no secret', async () => {
    const error = await failureOf(failingStateful().run());
    const text = JSON.stringify(error);
    const json = JSON.parse(text) as Record<string, unknown>;
    expect(json).toMatchObject({
      name: 'WorkflowError',
      workflowId: error.workflowId,
      nodeId: error.nodeId,
      state: { count: 4, label: 'working', token: '***' },
      cause: { name: 'Error', message: 'boom' },
    });
    expect((json.logs as unknown[]).length).toBe(3);
    expect(text).not.toContain('tok-SECRET-1');
    expect(text).not.toContain('hidden-value');
  });

  it('marks the failing step, the steps it passes through and the workflow as failed', async () => {
    const wf = failingStateful();
    const rec = record(wf);
    await failureOf(wf.run());
    expect(findByName(wf.node, 'inner').status).toBe('failed');
    expect(findByName(wf.node, 'outer').status).toBe('failed');
    expect(wf.status).toBe('failed');
    expect(eventsOfType(rec.events, 'stepEnd').map((e) => [e.name, e.status])).toEqual([
      ['inner', 'failed'],
      ['outer', 'failed'],
    ]);
    expect(eventsOfType(rec.events, 'workflowEnd').map((e) => e.status)).toEqual(['failed']);
  });

  it('emits exactly one error event per failure, on the node where it happened', async () => {
    const wf = failingStateful();
    const rec = record(wf);
    const error = await failureOf(wf.run());
    const errors = eventsOfType(rec.events, 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]?.nodeId).toBe(error.nodeId);
    expect(errors[0]?.error.message).toBe(error.message);
  });

  it('emits one error event when a child workflow failure passes through parent steps', async () => {
    const child = createWorkflow({ name: 'child' }, async (ctx) =>
      ctx.step('child-step', () => {
        throw new Error('deep');
      }),
    );
    const root = createWorkflow({ name: 'root' }, async (ctx) =>
      ctx.step('a', () => ctx.step('b', () => ctx.spawnWorkflow(child))),
    );
    const rec = record(root);
    const error = await failureOf(root.run());
    expect(error.workflowId).toBe(child.id);
    expect(error.nodeId).toBe(findByName(root.node, 'child-step').id);
    expect(eventsOfType(rec.events, 'error')).toHaveLength(1);
    expect(['a', 'b', 'child', 'child-step'].map((n) => findByName(root.node, n).status)).toEqual([
      'failed',
      'failed',
      'failed',
      'failed',
    ]);
    expect(root.status).toBe('failed');
  });

  it('reports a rethrown, already reported error only once', async () => {
    const wf = createWorkflow({ name: 'w' }, async (ctx) => {
      let caught: unknown;
      try {
        await ctx.step('first', () => {
          throw new Error('once');
        });
      } catch (error) {
        caught = error;
      }
      await ctx.step('second', () => {
        throw caught;
      });
    });
    const rec = record(wf);
    await failureOf(wf.run());
    expect(eventsOfType(rec.events, 'error')).toHaveLength(1);
    expect(findByName(wf.node, 'second').status).toBe('failed');
  });

  it('uses the workflow node when the executor itself throws', async () => {
    const wf = createWorkflow({ name: 'w' }, () => {
      throw new TypeError('executor broke');
    });
    const error = await failureOf(wf.run());
    expect(error.nodeId).toBe(wf.id);
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(wf.status).toBe('failed');
  });

  it('wraps non-Error throws', async () => {
    const thrownValues: unknown[] = ['a plain string', { code: 42 }, 7, undefined];
    for (const value of thrownValues) {
      const wf = createWorkflow({ name: 'w' }, (ctx) =>
        ctx.step('throws', () => {
          throw value;
        }),
      );
      const rec = record(wf);
      const error = await failureOf(wf.run());
      expect(error.cause).toBe(value);
      expect(error.original).toBe(value);
      expect(error.message).toContain('throws');
      expect(eventsOfType(rec.events, 'error')).toHaveLength(1);
    }
    const stringy = await failureOf(
      createWorkflow({ name: 'w' }, () => {
        throw 'plain words';
      }).run(),
    );
    expect(stringy.message).toContain('plain words');
  });

  it('gives an empty state and only the own logs when there is nothing else', async () => {
    const wf = createWorkflow({ name: 'plain' }, (ctx) =>
      ctx.step('s', () => {
        throw new Error('x');
      }),
    );
    const error = await failureOf(wf.run());
    expect(error.state).toEqual({});
    expect(error.logs).toEqual([]);
  });
});

describe('step retry', () => {
  function flaky(failures: number, error: () => unknown = () => new Error('transient')): { calls: () => number; fn: () => string } {
    let calls = 0;
    return {
      calls: () => calls,
      fn: () => {
        calls += 1;
        if (calls <= failures) throw error();
        return `ok after ${calls}`;
      },
    };
  }

  it('retries with backoff, emits stepRetry and succeeds on a later attempt', async () => {
    const clock = new FakeClock();
    const body = flaky(2);
    const wf = createWorkflow({ name: 'w', clock }, (ctx) =>
      ctx.step('flaky', body.fn, { retry: { maxAttempts: 3, backoffMs: 100 } }),
    );
    const rec = record(wf);

    await expect(wf.run()).resolves.toBe('ok after 3');

    expect(body.calls()).toBe(3);
    expect(clock.sleeps).toEqual([100, 100]);
    expect(eventsOfType(rec.events, 'stepRetry').map((e) => [e.name, e.attempt, e.delayMs, e.error.message])).toEqual([
      ['flaky', 1, 100, 'transient'],
      ['flaky', 2, 100, 'transient'],
    ]);
    const end = must(eventsOfType(rec.events, 'stepEnd')[0], 'stepEnd');
    expect(end).toMatchObject({ name: 'flaky', status: 'completed', attempts: 3, duration: 200 });
    expect(eventsOfType(rec.events, 'error')).toEqual([]);
    expect(findByName(wf.node, 'flaky').status).toBe('completed');
    expect(wf.node.children).toHaveLength(1);
  });

  it('computes the delay from a backoff function of the failed attempt', async () => {
    const clock = new FakeClock();
    const body = flaky(3);
    const wf = createWorkflow({ name: 'w', clock }, (ctx) =>
      ctx.step('flaky', body.fn, { retry: { maxAttempts: 4, backoffMs: (attempt) => attempt * 50 } }),
    );
    await wf.run();
    expect(clock.sleeps).toEqual([50, 100, 150]);
  });

  it('fails after maxAttempts with one error event carrying the last failure', async () => {
    const clock = new FakeClock();
    let calls = 0;
    const wf = createWorkflow({ name: 'w', clock }, (ctx) =>
      ctx.step(
        'hopeless',
        () => {
          calls += 1;
          throw new Error(`attempt ${calls}`);
        },
        { retry: { maxAttempts: 3, backoffMs: 10 } },
      ),
    );
    const rec = record(wf);
    const error = await failureOf(wf.run());
    expect(calls).toBe(3);
    expect((error.cause as Error).message).toBe('attempt 3');
    expect(eventsOfType(rec.events, 'stepRetry')).toHaveLength(2);
    expect(eventsOfType(rec.events, 'error')).toHaveLength(1);
    expect(eventsOfType(rec.events, 'stepEnd').map((e) => [e.status, e.attempts])).toEqual([['failed', 3]]);
  });

  it('stops retrying when retryOn says no, and passes it the error and attempt', async () => {
    const clock = new FakeClock();
    const asked: Array<[string, number]> = [];
    let calls = 0;
    const wf = createWorkflow({ name: 'w', clock }, (ctx) =>
      ctx.step(
        'picky',
        () => {
          calls += 1;
          throw new Error(calls === 1 ? 'transient' : 'fatal');
        },
        {
          retry: {
            maxAttempts: 5,
            retryOn: (error, attempt) => {
              const message = (error as Error).message;
              asked.push([message, attempt]);
              return message === 'transient';
            },
          },
        },
      ),
    );
    const rec = record(wf);
    const error = await failureOf(wf.run());
    expect(calls).toBe(2);
    expect(asked).toEqual([
      ['transient', 1],
      ['fatal', 2],
    ]);
    expect((error.cause as Error).message).toBe('fatal');
    expect(eventsOfType(rec.events, 'stepRetry')).toHaveLength(1);
  });

  it('never retries a UsageError, thrown directly or from a nested step', async () => {
    const clock = new FakeClock();
    let retryOnCalls = 0;
    const retry: RetryOptions = {
      maxAttempts: 5,
      retryOn: () => {
        retryOnCalls += 1;
        return true;
      },
    };
    let direct = 0;
    let nested = 0;
    const wf = createWorkflow({ name: 'w', clock }, async (ctx) => {
      await ctx
        .step(
          'direct',
          () => {
            direct += 1;
            throw new UsageError('misused');
          },
          { retry },
        )
        .catch(() => undefined);
      await ctx
        .step(
          'nested',
          () => {
            nested += 1;
            return ctx.step('inner', () => {
              throw new UsageError('misused inside');
            });
          },
          { retry },
        )
        .catch(() => undefined);
    });
    const rec = record(wf);
    await wf.run();
    expect([direct, nested, retryOnCalls]).toEqual([1, 1, 0]);
    expect(eventsOfType(rec.events, 'stepRetry')).toEqual([]);
    expect(isRetryable(new UsageError('x'))).toBe(false);
    expect(isRetryable(new Error('x'))).toBe(true);
  });

  it('refuses invalid retry options with a UsageError naming the step and the option', async () => {
    const invalid: RetryOptions[] = [
      { maxAttempts: 0 },
      { maxAttempts: 1.5 },
      { maxAttempts: Number.NaN },
      { maxAttempts: 2, backoffMs: -1 },
      { maxAttempts: 2, backoffMs: Number.NaN },
    ];
    const errors: unknown[] = [];
    let ran = 0;
    const wf = createWorkflow({ name: 'w' }, async (ctx) => {
      for (const retry of invalid) {
        try {
          await ctx.step('configured', () => (ran += 1), { retry });
        } catch (error) {
          errors.push(error);
        }
      }
    });
    await wf.run();
    expect(ran).toBe(0);
    expect(errors).toHaveLength(invalid.length);
    for (const error of errors) {
      expect(error).toBeInstanceOf(UsageError);
      expect((error as UsageError).message).toContain('configured');
    }
    expect((errors[0] as UsageError).message).toContain('maxAttempts');
    expect((errors[3] as UsageError).message).toContain('backoffMs');
    // The decorator checks the same options when the class is defined.
    expect(() => Step({ name: 'decorated', retry: { maxAttempts: 0 } })).toThrow(UsageError);
    expect(() => Step({ name: 'decorated', retry: { maxAttempts: 0 } })).toThrow(/decorated/);
  });

  it('refuses a retryOn that is not a function with a UsageError', async () => {
    const loose: unknown = { maxAttempts: 3, retryOn: 'yes' };
    let failure: unknown;
    let ran = 0;
    const wf = createWorkflow({ name: 'w' }, async (ctx) => {
      try {
        await ctx.step('s', () => {
          ran += 1;
          throw new Error('x');
        }, { retry: loose as RetryOptions });
      } catch (error) {
        failure = error;
      }
    });
    await wf.run();
    expect(failure).toBeInstanceOf(UsageError);
    expect(ran).toBe(0);
  });

  it('ends the step properly when the retryOn callback itself throws', async () => {
    interface HttpError {
      response: { status: number };
    }
    let stepError: unknown;
    const wf = createWorkflow({ name: 'w', clock: new FakeClock() }, async (ctx) => {
      try {
        await ctx.step(
          's',
          () => {
            throw new Error('network down');
          },
          { retry: { maxAttempts: 3, retryOn: (error) => (error as HttpError).response.status === 503 } },
        );
      } catch (error) {
        stepError = error;
        throw error;
      }
    });
    const rec = record(wf);
    const error = await failureOf(wf.run());
    const step = findByName(wf.node, 's');
    expect(stepError).toBeInstanceOf(WorkflowError);
    expect(step.status).toBe('failed');
    expect(error.nodeId).toBe(step.id);
    expect(eventsOfType(rec.events, 'stepEnd')).toHaveLength(1);
    expect(eventsOfType(rec.events, 'error')).toHaveLength(1);
  });

  it('refuses a backoffMs that is neither a number nor a function with a UsageError', async () => {
    const loose: unknown = { maxAttempts: 3, backoffMs: 'soon' };
    let failure: unknown;
    const wf = createWorkflow({ name: 'w', clock: new FakeClock() }, async (ctx) => {
      try {
        await ctx.step('s', () => 'fine', { retry: loose as RetryOptions });
      } catch (error) {
        failure = error;
      }
    });
    await wf.run();
    expect(failure).toBeInstanceOf(UsageError);
  });
});
