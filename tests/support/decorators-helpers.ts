import type { WorkflowNode } from 'groundswell';

export type DecoratorMode = 'tc39' | 'legacy';

/** The mode the current vitest run compiles decorators in (set by `test.env` in the two configs). */
export function decoratorMode(): DecoratorMode {
  const mode = process.env['GROUNDSWELL_DECORATOR_MODE'];
  if (mode !== 'tc39' && mode !== 'legacy') {
    throw new Error(`GROUNDSWELL_DECORATOR_MODE must be 'tc39' or 'legacy', got ${String(mode)}`);
  }
  return mode;
}

/** The only child node of `parent` with this name (fails loudly when missing or ambiguous). */
export function childNamed(parent: WorkflowNode, name: string): WorkflowNode {
  const found = parent.children.filter((child) => child.name === name);
  if (found.length !== 1) {
    throw new Error(`expected one child "${name}" under "${parent.name}", found ${found.length}`);
  }
  return found[0] as WorkflowNode;
}

/** Runs `fn` and returns what it threw (or rejected with); fails when it did not throw. */
export async function caught(fn: () => unknown): Promise<unknown> {
  try {
    await fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}
