import { describe, expect, it } from 'vitest';
import { createWorkflow, Step, Workflow, type WorkflowEvent, type WorkflowObserver } from 'groundswell';
import { usageErrorFrom } from '../support/usage-error.js';

class Counter extends Workflow<number> {
  @Step() async count(): Promise<number> {
    return 1;
  }

  override async run(): Promise<number> {
    return this.count();
  }
}

const refusal = usageErrorFrom;

const roots: readonly [string, () => Workflow][] = [
  ['a functional workflow', () => createWorkflow({ name: 'fn' }, () => 1)],
  ['a class-based workflow', () => new Counter({ name: 'counter' })],
];

describe.each(roots)('addObserver on %s', (_, make) => {
  it('refuses a method that is not a function, naming it and what was given', () => {
    const wf = make();
    const error = refusal(() => wf.addObserver({ onEvent: 5 } as unknown as WorkflowObserver));
    expect(error.message).toMatch(/observer\.onEvent must be a function, got 5\./);
    expect(error.message).toContain(`"${wf.name}"`);
    for (const method of ['onLog', 'onStateUpdated', 'onTreeChanged']) {
      expect(refusal(() => wf.addObserver({ [method]: 'later' } as unknown as WorkflowObserver)).message).toContain(
        `observer.${method} must be a function, got "later".`,
      );
    }
    expect(refusal(() => wf.addObserver({ onLog: null } as unknown as WorkflowObserver)).message).toContain(
      'observer.onLog must be a function, got null.',
    );
  });

  it('refuses a method inherited from a prototype that is not a function', () => {
    const wf = make();
    const proto = { onTreeChanged: { not: 'callable' } };
    const error = refusal(() => wf.addObserver(Object.create(proto) as WorkflowObserver));
    expect(error.message).toContain('observer.onTreeChanged must be a function');
  });

  it('refuses a non-object observer', () => {
    const wf = make();
    for (const bad of [undefined, null, 5, 'observer', () => undefined, [{ onEvent: () => undefined }]]) {
      const error = refusal(() => wf.addObserver(bad as unknown as WorkflowObserver));
      expect(error.message).toMatch(/observer must be an object with any of onLog, onEvent, onStateUpdated, onTreeChanged/);
    }
  });

  it('adds nothing when refused, and still accepts observers with methods, class instances and extra fields', async () => {
    const wf = make();
    refusal(() => wf.addObserver({ onEvent: () => undefined, onLog: 'x' } as unknown as WorkflowObserver));
    const events: WorkflowEvent[] = [];
    class Recorder {
      readonly label = 'extra fields are the observer\'s own business';
      onEvent(event: WorkflowEvent): void {
        events.push(event);
      }
    }
    const unsubscribe = wf.addObserver(new Recorder());
    wf.addObserver({});
    wf.addObserver({ onLog: undefined });
    await wf.run();
    expect(events.length).toBeGreaterThan(0);
    unsubscribe();
  });
});
