import { describe, expect, it } from 'vitest';
import { createWorkflow, ObservedState, Step, Task, UsageError, Workflow } from 'groundswell';
import { caught, decoratorMode } from '../support/decorators-helpers.js';

// Loose views of the decorators: the type checker would refuse these placements, the runtime
// checks are what is under test here. Decorators run when the class is defined, so every class
// is declared inside the function handed to the assertion (legacy decorators need declarations,
// not class expressions).
type LooseDecorator = (...args: unknown[]) => void;
const looseStep = Step() as unknown as LooseDecorator;
const looseTask = Task() as unknown as LooseDecorator;
const looseObserved = ObservedState() as unknown as LooseDecorator;

/**
 * `define` must throw a UsageError whose message names the decorator and the member;
 * returns the message for further checks.
 */
function expectMisuse(define: () => unknown, decorator: string, member: string): string {
  expect(define).toThrow(UsageError);
  const message = (() => {
    try {
      define();
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    return '';
  })();
  expect(message).toContain(decorator);
  expect(message).toContain(member);
  expect(message).toContain('can only decorate');
  return message;
}

describe('@Step() / @Task() on the wrong kind of member', () => {
  const cases = [
    { decorator: '@Step()', loose: looseStep },
    { decorator: '@Task()', loose: looseTask },
  ];

  for (const { decorator, loose } of cases) {
    describe(decorator, () => {
      it('throws on a field', () => {
        const message = expectMisuse(
          () => {
            class OnField extends Workflow {
              @loose retries = 3;
            }
            return OnField;
          },
          decorator,
          'retries',
        );
        expect(message).toContain('is a field');
      });

      it('throws on a getter', () => {
        expectMisuse(
          () => {
            class OnGetter extends Workflow {
              @loose get summary(): string {
                return 'x';
              }
            }
            return OnGetter;
          },
          decorator,
          'summary',
        );
      });

      it('throws on a setter', () => {
        expectMisuse(
          () => {
            class OnSetter extends Workflow {
              stored = '';
              @loose set target(value: string) {
                this.stored = value;
              }
            }
            return OnSetter;
          },
          decorator,
          'target',
        );
      });

      it('throws on a static method', () => {
        const message = expectMisuse(
          () => {
            class OnStatic extends Workflow {
              @loose static async create(): Promise<void> {}
            }
            return OnStatic;
          },
          decorator,
          'create',
        );
        expect(message).toContain('static method');
      });

      it('is accepted on an async instance method', () => {
        expect(() => {
          class OnMethod extends Workflow {
            @loose async fine(): Promise<void> {}
          }
          return OnMethod;
        }).not.toThrow();
      });
    });
  }

  it('names the member as the mode allows: Class.member in legacy mode, the member in TC39 mode', () => {
    const message = expectMisuse(
      () => {
        class Labelled extends Workflow {
          @looseStep count = 1;
        }
        return Labelled;
      },
      '@Step()',
      'count',
    );
    // A TC39 decorator context does not carry the class, so only legacy can name it.
    if (decoratorMode() === 'legacy') expect(message).toContain('"Labelled.count"');
    else expect(message).toContain('"count"');
  });
});

describe('@ObservedState() on the wrong kind of member', () => {
  it('throws on a method', () => {
    const message = expectMisuse(
      () => {
        class OnMethod extends Workflow {
          @looseObserved async compute(): Promise<number> {
            return 1;
          }
        }
        return OnMethod;
      },
      '@ObservedState()',
      'compute',
    );
    expect(message).toContain('is a method');
  });

  it('throws on a getter', () => {
    expectMisuse(
      () => {
        class OnGetter extends Workflow {
          @looseObserved get total(): number {
            return 1;
          }
        }
        return OnGetter;
      },
      '@ObservedState()',
      'total',
    );
  });

  it('throws on a static field', () => {
    expectMisuse(
      () => {
        class OnStatic extends Workflow {
          @looseObserved static registry = new Map<string, number>();
        }
        return OnStatic;
      },
      '@ObservedState()',
      'registry',
    );
  });

  it('is accepted on an instance field', () => {
    expect(() => {
      class OnField extends Workflow {
        @looseObserved fine = 1;
      }
      return OnField;
    }).not.toThrow();
  });
});

describe('calling a decorated method on something that is not a Workflow', () => {
  class Sample extends Workflow {
    @Step() async work(): Promise<number> {
      return 1;
    }
    @Task() async spawn(): Promise<Workflow> {
      return createWorkflow('child', () => 'child');
    }
  }

  it('a step called with a plain object as `this` rejects with a UsageError', async () => {
    const work = Sample.prototype.work;
    const error = await caught(() => work.call({}));
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toHaveProperty('message', expect.stringContaining('@Step()'));
    expect(error).toHaveProperty('message', expect.stringContaining('"work"'));
    expect(error).toHaveProperty('message', expect.stringContaining('must be a Workflow'));
  });

  it('rejects rather than throwing synchronously', async () => {
    const work = Sample.prototype.work;
    let pending: Promise<number> | undefined;
    expect(() => {
      pending = work.call({});
    }).not.toThrow();
    await expect(pending).rejects.toBeInstanceOf(UsageError);
  });

  it('a step detached from its instance (no `this`) rejects with a UsageError', async () => {
    const { work } = new Sample();
    const error = await caught(() => work());
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toHaveProperty('message', expect.stringContaining('undefined'));
  });

  it('a task called with a plain object as `this` rejects with a UsageError', async () => {
    const spawn = Sample.prototype.spawn;
    const error = await caught(() => spawn.call({ name: 'impostor' }));
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toHaveProperty('message', expect.stringContaining('@Task()'));
    expect(error).toHaveProperty('message', expect.stringContaining('"spawn"'));
  });
});
