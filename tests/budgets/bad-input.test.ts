import { describe, expect, it } from 'vitest';
import { createAgent, createWorkflow, Step, Task, Workflow, type Budget } from 'groundswell';
import { usageErrorFrom } from '../support/usage-error.js';

/** The UsageError message `define` throws. */
function refusal(define: () => unknown): string {
  return usageErrorFrom(define).message;
}

// Untyped callers: each value is what a JavaScript user (or a cast) could pass.
const BAD: Array<[string, unknown, RegExp]> = [
  ['a negative dollar amount', { usd: -1 }, /budget\.usd must be a finite number >= 0, got -1/],
  ['NaN dollars', { usd: Number.NaN }, /budget\.usd must be a finite number >= 0, got NaN/],
  ['infinite dollars', { usd: Number.POSITIVE_INFINITY }, /budget\.usd must be a finite number >= 0/],
  ['a fractional token count', { tokens: 10.5 }, /budget\.tokens must be an integer >= 0, got 10\.5/],
  ['a negative request count', { modelRequests: -2 }, /budget\.modelRequests must be an integer >= 0/],
  ['a count given as text', { toolCalls: '3' }, /budget\.toolCalls must be an integer >= 0, got "3"/],
  ['no time at all', { wallMs: 0 }, /budget\.wallMs must be a number of milliseconds greater than 0/],
  ['a timer too long for Node', { wallMs: 2 ** 31 }, /budget\.wallMs must be a number of milliseconds greater than 0 and at most 2147483647/],
  ['warnAt 0', { usd: 1, warnAt: 0 }, /budget\.warnAt must be a number greater than 0 and at most 1, got 0/],
  ['warnAt above 1', { usd: 1, warnAt: 1.5 }, /budget\.warnAt must be a number greater than 0 and at most 1, got 1\.5/],
  ['an unknown key', { usdd: 1 }, /budget has an unknown key "usdd" \(did you mean usd\?\)/],
  ['not an object', 5, /budget must be an object like \{ usd: 0\.5, tokens: 100000 \}/],
];

describe('a bad budget is a UsageError where it is given', () => {
  it.each(BAD)('on a workflow: %s', (_what, budget, message) => {
    expect(refusal(() => createWorkflow({ name: 'w', budget: budget as Budget }, () => undefined))).toMatch(message);
  });

  it.each(BAD)('on an agent: %s', (_what, budget, message) => {
    expect(refusal(() => createAgent({ name: 'a', budget: budget as Budget }))).toMatch(message);
  });

  it('on ctx.step, before the step runs', async () => {
    let ran = false;
    const workflow = createWorkflow({ name: 'w' }, (ctx) => ctx.step('s', () => (ran = true), { budget: { tokens: -1 } }));
    await expect(workflow.run()).rejects.toThrow(/ctx\.step "s": options\.budget\.tokens must be an integer >= 0, got -1/);
    expect(ran).toBe(false);
  });

  it('on @Step and @Task, when the class is defined', () => {
    expect(
      refusal(() => {
        class Spender extends Workflow {
          @Step({ budget: { usd: -1 } })
          async spend(): Promise<void> {}
        }
        return Spender;
      }),
    ).toMatch(/^@Step: options\.budget\.usd must be a finite number >= 0, got -1/);
    expect(
      refusal(() => {
        class Parent extends Workflow {
          @Task({ budget: { warnAt: 2 } })
          async spawnChildren(): Promise<Workflow[]> {
            return [];
          }
        }
        return Parent;
      }),
    ).toMatch(/^@Task: options\.budget\.warnAt must be a number greater than 0 and at most 1, got 2/);
  });

  it('a good budget is accepted everywhere', () => {
    const budget: Budget = { usd: 0.5, tokens: 1_000, modelRequests: 3, toolCalls: 0, wallMs: 60_000, warnAt: 1 };
    expect(() => createWorkflow({ name: 'w', budget }, () => undefined)).not.toThrow();
    expect(() => createAgent({ name: 'a', budget })).not.toThrow();
  });
});
