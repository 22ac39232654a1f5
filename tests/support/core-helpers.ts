import { WorkflowError, type WorkflowNode } from 'groundswell';
import { expect } from 'vitest';

/** Lets every queued promise callback and timer of this turn run. */
export async function flush(turns = 3): Promise<void> {
  for (let i = 0; i < turns; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** The value, or a failed assertion naming what was missing. */
export function must<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`expected ${what} to exist`);
  return value;
}

/** Every node of a subtree, parents first (iterative). */
export function allNodes(root: WorkflowNode): WorkflowNode[] {
  const out: WorkflowNode[] = [];
  const stack: WorkflowNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as WorkflowNode;
    out.push(node);
    for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i] as WorkflowNode);
  }
  return out;
}

export function findByName(root: WorkflowNode, name: string): WorkflowNode {
  return must(
    allNodes(root).find((n) => n.name === name),
    `node "${name}"`,
  );
}

export interface Shape {
  name: string;
  kind: string;
  children: Shape[];
}

/** Names and kinds of a subtree, for comparing tree structure with toEqual. */
export function shape(node: WorkflowNode): Shape {
  return { name: node.name, kind: node.kind, children: node.children.map(shape) };
}

/** The WorkflowError a promise rejects with; fails the test if it resolves or rejects otherwise. */
export async function failureOf(promise: Promise<unknown>): Promise<WorkflowError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(WorkflowError);
    return error as WorkflowError;
  }
  throw new Error('expected the run to fail');
}
