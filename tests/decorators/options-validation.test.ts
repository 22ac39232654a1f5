import { describe, expect, it } from 'vitest';
import { ObservedState, Step, Task, Workflow } from 'groundswell';
import { usageErrorFrom } from '../support/usage-error.js';

// Bad decorator options are refused when the class is defined, in both decorator modes (this
// file also runs with experimentalDecorators). The casts stand for untyped callers.
type StepOptions = Parameters<typeof Step>[0];
type TaskOptions = Parameters<typeof Task>[0];
type FieldOptions = Parameters<typeof ObservedState>[0];

function refusal(define: () => unknown): string {
  return usageErrorFrom(define).message;
}

describe('decorator options are validated at class definition', () => {
  it('@Step with an overflowing backoff', () => {
    const message = refusal(() => {
      class Slow extends Workflow {
        @Step({ name: 'poll', retry: { maxAttempts: 2, backoffMs: 2 ** 31 } })
        async poll(): Promise<void> {}
      }
      return Slow;
    });
    expect(message).toMatch(/^@Step "poll": options\.retry\.backoffMs must be a number of milliseconds from 0 to 2147483647/);
  });

  it('@Step with a misspelt option', () => {
    const message = refusal(() => {
      class Typo extends Workflow {
        @Step({ logstart: true } as StepOptions)
        async work(): Promise<void> {}
      }
      return Typo;
    });
    expect(message).toBe('@Step: options has an unknown key "logstart" (did you mean logStart?).');
  });

  it('@Task with a non-boolean concurrent', () => {
    const message = refusal(() => {
      class Fan extends Workflow {
        @Task({ concurrent: 'yes' } as unknown as TaskOptions)
        async spawn(): Promise<Workflow[]> {
          return [];
        }
      }
      return Fan;
    });
    expect(message).toBe('@Task: options.concurrent must be true or false, got "yes".');
  });

  it('@ObservedState with `redacted` instead of `redact` (which would have shown the secret)', () => {
    const message = refusal(() => {
      class Holder extends Workflow {
        @ObservedState({ redacted: true } as FieldOptions)
        token = 'secret';
      }
      return Holder;
    });
    expect(message).toBe('@ObservedState: options has an unknown key "redacted" (did you mean redact?).');
  });

  it('valid options still decorate', async () => {
    class Fine extends Workflow {
      @ObservedState({ redact: true }) token = 'secret';

      @Step({ name: 'work', trackTiming: false, retry: { maxAttempts: 2, backoffMs: 0 } })
      async work(): Promise<number> {
        return 1;
      }
    }
    await expect(new Fine('fine').work()).resolves.toBe(1);
  });
});
