import type { WorkflowNode } from '../types/node.js';

/** Depth-first, parents before children, without recursion (deep chains must not overflow). */
export function* walkTree<N extends { readonly children: readonly N[] }>(root: N): Generator<N> {
  const stack: N[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as N;
    yield node;
    for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i] as N);
  }
}

export function findNode<N extends WorkflowNode>(root: N, id: string): N | undefined {
  for (const node of walkTree<WorkflowNode>(root)) if (node.id === id) return node as N;
  return undefined;
}

/** Nearest first: parent, grandparent, ... up to the root. */
export function ancestorsOf(node: WorkflowNode): WorkflowNode[] {
  const out: WorkflowNode[] = [];
  for (let n = node.parent; n !== null; n = n.parent) out.push(n);
  return out;
}
