import { describe, expect, it } from 'vitest';
import { createWorkflow, GroundswellError, UsageError, Workflow } from 'groundswell';
import { eventsOfType, record } from '../support/events.js';

/** Runs `fn` and returns what it threw (fails the test when it does not throw). */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('attachChild / detachChild', () => {
  it('attaches with the constructor parent and with attachChild', () => {
    const root = new Workflow('root');
    const a = new Workflow('a', root);
    const b = new Workflow('b');
    root.attachChild(b);
    expect(root.children).toEqual([a, b]);
    expect(a.parent).toBe(root);
    expect(b.parent).toBe(root);
    expect(root.node.children).toEqual([a.node, b.node]);
    expect(a.node.parent).toBe(root.node);
  });

  it('refuses a second parent with a UsageError naming the child and its current parent', () => {
    const first = new Workflow('first-parent');
    const second = new Workflow('second-parent');
    const child = new Workflow('the-child', first);

    const error = thrownBy(() => second.attachChild(child));
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toBeInstanceOf(GroundswellError);
    const message = (error as UsageError).message;
    expect(message).toContain('the-child');
    expect(message).toContain('first-parent');
    expect(message).toContain(child.id);
    expect(message).toContain(first.id);
    expect(message).toMatch(/detach/);

    // Nothing moved.
    expect(child.parent).toBe(first);
    expect(second.children).toEqual([]);
    expect(second.node.children).toEqual([]);
    expect(first.node.children).toEqual([child.node]);
  });

  it('refuses a second parent passed to the constructor too', () => {
    const first = new Workflow('first-parent');
    const child = new Workflow('the-child', first);
    const other = createWorkflow({ name: 'other' }, () => 1);
    expect(() => other.attachChild(child)).toThrow(UsageError);
    expect(child.root).toBe(first);
  });

  it('treats attaching the same child to the same parent twice as a no-op', () => {
    const root = new Workflow('root');
    const rec = record(root);
    const child = new Workflow('child');
    root.attachChild(child);
    root.attachChild(child);
    expect(() => root.attachChild(child)).not.toThrow();
    expect(root.children).toEqual([child]);
    expect(root.node.children).toEqual([child.node]);
    expect(eventsOfType(rec.events, 'childAttached')).toHaveLength(1);
  });

  it('is still a no-op when the second attach happens inside a running step', async () => {
    const child = new Workflow('child');
    const root = createWorkflow({ name: 'root' }, async (ctx) => {
      ctx.workflow.attachChild(child);
      await ctx.step('again', () => ctx.workflow.attachChild(child));
    });
    await root.run();
    expect(root.children).toEqual([child]);
    expect(root.node.children.filter((n) => n.kind === 'workflow')).toEqual([child.node]);
    expect(root.node.children.find((n) => n.name === 'again')?.children).toEqual([]);
  });

  it('refuses to make a workflow its own child', () => {
    const wf = new Workflow('selfish');
    expect(() => wf.attachChild(wf)).toThrow(UsageError);
    expect(() => wf.attachChild(wf)).toThrow(/selfish/);
    expect(wf.children).toEqual([]);
    expect(wf.parent).toBeNull();
  });

  it('refuses cycles through ancestors', () => {
    const root = new Workflow('root');
    const mid = new Workflow('mid', root);
    const leaf = new Workflow('leaf', mid);
    const error = thrownBy(() => leaf.attachChild(root));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(/cycle/);
    // mid already has a parent: refused as well (either rule), never a loop.
    expect(() => leaf.attachChild(mid)).toThrow(UsageError);
    expect(root.parent).toBeNull();
    expect(leaf.children).toEqual([]);
    expect(leaf.node.children).toEqual([]);
  });

  it('refuses a non-workflow with a UsageError', () => {
    const root = new Workflow('root');
    const loose: unknown = { name: 'fake', id: 'wf_fake' };
    // @ts-expect-error simulating an untyped caller
    expect(() => root.attachChild(loose)).toThrow(UsageError);
    // @ts-expect-error simulating an untyped caller
    expect(() => root.attachChild(null)).toThrow(UsageError);
  });

  it('detaches a child: both trees updated, events emitted, the child becomes a root', () => {
    const root = new Workflow('root');
    const rec = record(root);
    const child = new Workflow('child', root);
    const grandchild = new Workflow('grandchild', child);
    expect(grandchild.root).toBe(root);

    root.detachChild(child);
    expect(root.children).toEqual([]);
    expect(root.node.children).toEqual([]);
    expect(child.parent).toBeNull();
    expect(child.node.parent).toBeNull();
    expect(child.root).toBe(child);
    expect(grandchild.root).toBe(child);
    expect(grandchild.parent).toBe(child);
    expect(eventsOfType(rec.events, 'childDetached').map((e) => [e.childId, e.childName])).toEqual([[child.id, 'child']]);

    // It can be attached elsewhere afterwards.
    const other = new Workflow('other');
    other.attachChild(child);
    expect(child.root).toBe(other);
    expect(grandchild.root).toBe(other);
    expect(other.node.children).toEqual([child.node]);
  });

  it('throws a UsageError when detaching a workflow that is not a child', () => {
    const root = new Workflow('root');
    const orphan = new Workflow('orphan');
    const grandchild = new Workflow('grandchild', new Workflow('child', root));
    expect(() => root.detachChild(orphan)).toThrow(UsageError);
    expect(() => root.detachChild(orphan)).toThrow(/orphan/);
    // A grandchild is not a child either.
    expect(() => root.detachChild(grandchild)).toThrow(UsageError);
    expect(grandchild.root).toBe(root);
  });

  it('throws a UsageError (not a TypeError) when an untyped caller detaches null', () => {
    const root = new Workflow('root');
    // @ts-expect-error simulating an untyped caller
    expect(() => root.detachChild(null)).toThrow(UsageError);
  });

  it('isDescendantOf follows the parent chain only', () => {
    const root = new Workflow('root');
    const child = new Workflow('child', root);
    const grandchild = new Workflow('grandchild', child);
    const sibling = new Workflow('sibling', root);
    const stranger = new Workflow('stranger');

    expect(child.isDescendantOf(root)).toBe(true);
    expect(grandchild.isDescendantOf(root)).toBe(true);
    expect(grandchild.isDescendantOf(child)).toBe(true);
    expect(root.isDescendantOf(child)).toBe(false);
    expect(root.isDescendantOf(root)).toBe(false);
    expect(grandchild.isDescendantOf(sibling)).toBe(false);
    expect(grandchild.isDescendantOf(stranger)).toBe(false);

    child.detachChild(grandchild);
    expect(grandchild.isDescendantOf(root)).toBe(false);
  });

  it('root is the top of the chain and follows re-parenting', () => {
    const a = new Workflow('a');
    const b = new Workflow('b');
    const child = new Workflow('child', a);
    const grandchild = new Workflow('grandchild', child);
    expect([a.root, child.root, grandchild.root]).toEqual([a, a, a]);
    a.detachChild(child);
    b.attachChild(child);
    expect([child.root, grandchild.root]).toEqual([b, b]);
    // Attaching a whole subtree under a deeper node updates every descendant's root.
    const top = new Workflow('top');
    const holder = new Workflow('holder', top);
    holder.attachChild(b);
    expect([b.root, child.root, grandchild.root]).toEqual([top, top, top]);
    expect(grandchild.isDescendantOf(top)).toBe(true);
  });
});
