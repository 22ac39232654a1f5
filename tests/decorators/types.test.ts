import { describe, expect, expectTypeOf, it } from 'vitest';
import { createWorkflow, ObservedState, Step, Task, UsageError, Workflow, WorkflowError } from 'groundswell';
import { caught } from '../support/decorators-helpers.js';

// Every `@ts-expect-error` below is checked by BOTH `tsc -p tsconfig.json` (TC39 decorators) and
// `tsc -p tsconfig.legacy.json` (experimentalDecorators): an unused directive fails either run.
// The classes still run in vitest (types are erased), which shows what the compile error prevents.
//
// Left out on purpose: `@ObservedState()` directly on a method is a compile error with TC39
// decorators only (the legacy signature `(target, key)` accepts a method), so it is covered by the
// runtime check in misuse.test.ts instead.

describe('decorated signatures', () => {
  class Typed extends Workflow {
    @ObservedState() count = 0;
    @Step() async combine(a: number, b: string): Promise<string> {
      return `${a}${b}`;
    }
    @Task() async spawn(names: string[]): Promise<Workflow[]> {
      return names.map((name) => createWorkflow(name, () => name));
    }
    @Task() async spawnOne(): Promise<Workflow> {
      return createWorkflow('one', () => 'one');
    }
  }

  it('keep the parameter and return types of the method', async () => {
    const wf = new Typed();
    expectTypeOf(wf.combine).parameters.toEqualTypeOf<[number, string]>();
    expectTypeOf(wf.combine).returns.toEqualTypeOf<Promise<string>>();
    expectTypeOf(wf.spawn).returns.toEqualTypeOf<Promise<Workflow[]>>();
    expectTypeOf(wf.spawnOne).returns.toEqualTypeOf<Promise<Workflow>>();
    expectTypeOf(wf.count).toEqualTypeOf<number>();
    await expect(wf.combine(1, 'x')).resolves.toBe('1x');
    await expect(wf.spawn(['p', 'q'])).resolves.toHaveLength(2);
  });
});

describe('misuse the type checker refuses in both modes', () => {
  it('@Step() on a synchronous method (at runtime it would silently return a Promise)', async () => {
    class SyncStep extends Workflow {
      // @ts-expect-error -- a step must be declared async (it always returns a Promise)
      @Step()
      double(value: number): number {
        return value * 2;
      }
    }
    const result: unknown = new SyncStep().double(2);
    expect(result).toBeInstanceOf(Promise);
    await expect(result).resolves.toBe(4);
  });

  it('@Step() on a method of a class that is not a Workflow (at runtime: UsageError when called)', async () => {
    class Plain {
      // @ts-expect-error -- only Workflow subclasses can have steps
      @Step()
      async work(): Promise<number> {
        return 1;
      }
    }
    const error = await caught(() => new Plain().work());
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toHaveProperty('message', expect.stringContaining('Plain'));
  });

  it('@Task() on a method of a class that is not a Workflow', async () => {
    class Plain {
      // @ts-expect-error -- only Workflow subclasses can have tasks
      @Task()
      async spawn(): Promise<Workflow> {
        return createWorkflow('child', () => 'child');
      }
    }
    await expect(new Plain().spawn()).rejects.toBeInstanceOf(UsageError);
  });

  it('@Task() on a method that does not resolve to workflows (at runtime: WorkflowError)', async () => {
    class WrongTask extends Workflow {
      // @ts-expect-error -- a task must return Workflow | Workflow[]
      @Task()
      async spawn(): Promise<string> {
        return 'not a workflow';
      }
    }
    const error = await caught(() => new WrongTask().spawn());
    expect(error).toBeInstanceOf(WorkflowError);
    expect(error).toHaveProperty('cause', expect.any(UsageError));
  });

  it('@Task() on a synchronous method', async () => {
    class SyncTask extends Workflow {
      // @ts-expect-error -- a task must be declared async
      @Task()
      spawn(): Workflow {
        return createWorkflow('child', () => 'child');
      }
    }
    const result: unknown = new SyncTask().spawn();
    expect(result).toBeInstanceOf(Promise);
    await expect(result).resolves.toBeInstanceOf(Workflow);
  });

  it('@Step() on a field, a getter or a static method (at runtime: UsageError at class definition)', () => {
    expect(() => {
      class OnField extends Workflow {
        // @ts-expect-error -- not a method
        @Step()
        handler = async (): Promise<void> => {};
      }
      return OnField;
    }).toThrow(UsageError);

    expect(() => {
      class OnGetter extends Workflow {
        // @ts-expect-error -- not a method
        @Step()
        get value(): Promise<number> {
          return Promise.resolve(1);
        }
      }
      return OnGetter;
    }).toThrow(UsageError);

    expect(() => {
      class OnStatic extends Workflow {
        // @ts-expect-error -- not an instance method
        @Step()
        static async make(): Promise<number> {
          return 1;
        }
      }
      return OnStatic;
    }).toThrow(UsageError);
  });

  it('@Step() options are typed (at runtime: UsageError at class definition)', () => {
    expect(() => {
      class BadOption extends Workflow {
        @Step({
          // @ts-expect-error -- trackTiming is a boolean
          trackTiming: 'no',
        })
        async work(): Promise<number> {
          return 1;
        }
      }
      return BadOption;
    }).toThrow(/options\.trackTiming must be true or false/);
  });
});
