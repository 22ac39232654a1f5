import { describe, expect, it } from 'vitest';
import { exportRun, ObservedState, REDACTED, Step, Workflow, WorkflowError, WorkflowTreeDebugger } from 'groundswell';
import { caught } from '../support/decorators-helpers.js';
import { eventsOfType, record } from '../support/events.js';

describe('@ObservedState() fields', () => {
  it('tracks decorated fields with their current values, and only those', () => {
    class Tracked extends Workflow {
      @ObservedState() count = 0;
      @ObservedState() label = 'start';
      @ObservedState() items: string[] = [];
      notObserved = 'internal';
    }
    const wf = new Tracked();
    expect(wf.snapshotState()).toEqual({ count: 0, label: 'start', items: [] });
    wf.count = 5;
    wf.label = 'later';
    wf.items.push('a');
    const snapshot = wf.snapshotState();
    expect(snapshot).toEqual({ count: 5, label: 'later', items: ['a'] });
    expect(Object.keys(snapshot)).toEqual(['count', 'label', 'items']);
    expect(snapshot).not.toHaveProperty('notObserved');
  });

  it('snapshots are frozen copies: later changes do not alter an earlier snapshot', () => {
    class Tracked extends Workflow {
      @ObservedState() items: string[] = ['a'];
    }
    const wf = new Tracked();
    const first = wf.snapshotState();
    wf.items.push('b');
    expect(first).toEqual({ items: ['a'] });
    expect(Object.isFrozen(first)).toBe(true);
    expect(wf.snapshotState()).toEqual({ items: ['a', 'b'] });
  });

  it('keeps values per instance', () => {
    class Tracked extends Workflow {
      @ObservedState() count = 0;
    }
    const one = new Tracked();
    const two = new Tracked();
    one.count = 1;
    two.count = 2;
    expect(one.snapshotState()).toEqual({ count: 1 });
    expect(two.snapshotState()).toEqual({ count: 2 });
  });

  it('stores the snapshot on the workflow node and emits a stateSnapshot event', () => {
    class Tracked extends Workflow {
      @ObservedState() count = 3;
    }
    const wf = new Tracked();
    const events = record(wf).events;
    wf.snapshotState();
    expect(wf.node.stateSnapshot).toEqual({ count: 3 });
    expect(eventsOfType(events, 'stateSnapshot')).toEqual([
      expect.objectContaining({ nodeId: wf.id, state: { count: 3 } }),
    ]);
  });

  it('a workflow with no observed fields snapshots to an empty object', () => {
    class Plain extends Workflow {
      value = 1;
    }
    expect(new Plain().snapshotState()).toEqual({});
  });
});

describe('@ObservedState() hidden and redact', () => {
  class Secretive extends Workflow {
    @ObservedState() visible = 'shown';
    @ObservedState({ hidden: true }) internalCache = 'cache-contents';
    @ObservedState({ redact: true }) apiKey = 'sk-live-123456';
    @ObservedState({ redact: true }) credentials = { user: 'bob', password: 'pw-987' };

    @Step({ snapshotState: true }) async work(): Promise<void> {}
    @Step() async fail(): Promise<void> {
      throw new Error('failed while holding secrets');
    }
  }

  it('leaves hidden fields out and shows redacted fields as ***', () => {
    const snapshot = new Secretive().snapshotState();
    expect(REDACTED).toBe('***');
    expect(snapshot).toEqual({ visible: 'shown', apiKey: '***', credentials: '***' });
    expect(snapshot).not.toHaveProperty('internalCache');
  });

  it('redacts in the error state, the JSON tree, the debugger output and the run export', async () => {
    const wf = new Secretive();
    await wf.work();
    const error = await caught(() => wf.fail());
    expect(error).toBeInstanceOf(WorkflowError);
    if (!(error instanceof WorkflowError)) return;
    expect(error.state).toEqual({ visible: 'shown', apiKey: '***', credentials: '***' });

    const outputs = [
      JSON.stringify(error.toJSON()),
      JSON.stringify(wf.toJSON()),
      JSON.stringify(exportRun(wf.node)),
      new WorkflowTreeDebugger(wf).toTreeString(),
    ];
    for (const text of outputs) {
      expect(text).not.toContain('sk-live-123456');
      expect(text).not.toContain('pw-987');
      expect(text).not.toContain('cache-contents');
    }
    expect(new WorkflowTreeDebugger(wf).toTreeString()).toContain('***');
  });

  it('the real field values stay untouched on the instance', () => {
    const wf = new Secretive();
    wf.snapshotState();
    expect(wf.apiKey).toBe('sk-live-123456');
    expect(wf.internalCache).toBe('cache-contents');
  });
});

describe('@ObservedState() and inheritance', () => {
  it('a subclass inherits the parent fields and adds its own without changing the parent list', () => {
    class Base extends Workflow {
      @ObservedState() baseField = 'b';
    }
    class Sub extends Base {
      @ObservedState() subField = 's';
    }
    // Instances created after both classes exist: the parent must not have picked up subField.
    expect(new Sub().snapshotState()).toEqual({ baseField: 'b', subField: 's' });
    expect(new Base().snapshotState()).toEqual({ baseField: 'b' });
  });

  it('two sibling subclasses do not share fields', () => {
    class Base extends Workflow {
      @ObservedState() shared = 0;
    }
    class Left extends Base {
      @ObservedState() left = 'L';
    }
    class Right extends Base {
      @ObservedState({ redact: true }) right = 'R';
    }
    expect(new Left().snapshotState()).toEqual({ shared: 0, left: 'L' });
    expect(new Right().snapshotState()).toEqual({ shared: 0, right: '***' });
    expect(new Base().snapshotState()).toEqual({ shared: 0 });
  });

  it('a subclass without decorated fields of its own has exactly the parent fields', () => {
    class Base extends Workflow {
      @ObservedState() a = 1;
      @ObservedState({ hidden: true }) h = 2;
    }
    class Bare extends Base {
      extra = 3;
    }
    expect(new Bare().snapshotState()).toEqual({ a: 1 });
  });

  it('inherits across several levels, in declaration order from the base down', () => {
    class Top extends Workflow {
      @ObservedState() top = 't';
    }
    class Middle extends Top {
      @ObservedState() middle = 'm';
    }
    class Bottom extends Middle {
      @ObservedState() bottom = 'b';
    }
    expect(Object.keys(new Bottom().snapshotState())).toEqual(['top', 'middle', 'bottom']);
    expect(Object.keys(new Middle().snapshotState())).toEqual(['top', 'middle']);
    expect(Object.keys(new Top().snapshotState())).toEqual(['top']);
  });

  it('a parent class declared without decorated fields still lets subclasses track theirs', () => {
    class Undecorated extends Workflow {
      plain = 0;
    }
    class Decorated extends Undecorated {
      @ObservedState() tracked = 'yes';
    }
    expect(new Decorated().snapshotState()).toEqual({ tracked: 'yes' });
    expect(new Undecorated().snapshotState()).toEqual({});
  });

  it('a subclass redeclaring a parent field with redact: true shows it redacted', () => {
    class Base extends Workflow {
      @ObservedState() token = 'plain-token';
    }
    class Careful extends Base {
      @ObservedState({ redact: true }) override token = 'plain-token';
    }
    expect(new Careful().snapshotState()).toEqual({ token: '***' });
    expect(new Base().snapshotState()).toEqual({ token: 'plain-token' });
  });

  // Regression: the inherited (visible) entry used to be kept next to the subclass's hidden one.
  it('a subclass redeclaring a parent field with hidden: true leaves it out', () => {
    class Base extends Workflow {
      @ObservedState() token = 'hidden-token';
    }
    class Careful extends Base {
      @ObservedState({ hidden: true }) override token = 'hidden-token';
    }
    expect(new Careful().snapshotState()).toEqual({});
  });
});
