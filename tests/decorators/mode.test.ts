import { describe, expect, it } from 'vitest';
import { Step, Workflow } from 'groundswell';
import { decoratorMode } from '../support/decorators-helpers.js';

// A plain decorator that works in both compile modes and records exactly what it was called with.
function makeProbe(): { calls: unknown[][]; probe: (...args: unknown[]) => void } {
  const calls: unknown[][] = [];
  return { calls, probe: (...args: unknown[]) => void calls.push(args) };
}

describe('decorator compile mode', () => {
  it('is announced by the vitest config', () => {
    expect(['tc39', 'legacy']).toContain(process.env['GROUNDSWELL_DECORATOR_MODE']);
  });

  it('passes a method decorator the arguments of the mode this file was compiled in', () => {
    const { calls, probe } = makeProbe();
    class Probed {
      @probe greet(): string {
        return 'hi';
      }
    }
    expect(calls).toHaveLength(1);
    const args = calls[0] ?? [];

    if (decoratorMode() === 'tc39') {
      // TC39: (method, context) with a context object of kind 'method'.
      expect(args).toHaveLength(2);
      const [method, context] = args;
      expect(typeof method).toBe('function');
      expect(context).toMatchObject({ kind: 'method', name: 'greet', static: false, private: false });
      expect(context).toHaveProperty('addInitializer');
      expect(context).toHaveProperty('metadata');
    } else {
      // Legacy: (prototype, key, descriptor), no context object anywhere.
      expect(args).toHaveLength(3);
      const [target, key, descriptor] = args;
      expect(target).toBe(Probed.prototype);
      expect(key).toBe('greet');
      expect(descriptor).toMatchObject({ writable: true, enumerable: false, configurable: true });
      expect(descriptor).toHaveProperty('value', Probed.prototype.greet);
      expect(descriptor).not.toHaveProperty('kind');
    }
    expect(new Probed().greet()).toBe('hi');
  });

  it('passes a field decorator the arguments of the mode this file was compiled in', () => {
    const { calls, probe } = makeProbe();
    class Probed {
      @probe label = 'x';
    }
    expect(calls).toHaveLength(1);
    const args = calls[0] ?? [];

    if (decoratorMode() === 'tc39') {
      expect(args).toHaveLength(2);
      expect(args[0]).toBeUndefined();
      expect(args[1]).toMatchObject({ kind: 'field', name: 'label', static: false });
    } else {
      expect(args).toHaveLength(3);
      expect(args[0]).toBe(Probed.prototype);
      expect(args[1]).toBe('label');
      expect(args[2]).toBeUndefined();
    }
    expect(new Probed().label).toBe('x');
  });

  it('runs the same @Step in either mode', async () => {
    class Greeter extends Workflow {
      @Step() async greet(name: string): Promise<string> {
        return `hello ${name}`;
      }
    }
    const wf = new Greeter();
    await expect(wf.greet('you')).resolves.toBe('hello you');
    expect(wf.node.children.map((child) => `${child.kind}:${child.name}:${child.status}`)).toEqual([
      'step:greet:completed',
    ]);
  });
});
