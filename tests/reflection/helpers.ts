import { z } from 'zod';
import type { WorkflowNode } from 'groundswell';
import { json, type MessageStep, type RecordedRequest } from 'groundswell/testing';

/** The answer shape the reflection tests ask for: a number, so `{ n: 'five' }` is a schema mismatch. */
export const Count = z.object({ n: z.number() });

export const LESSONS_HEADING = '# Lessons from a failed attempt';

/** What a reflecting model answers: `{ critique, revisedUser, guidance }`. */
export function revision(critique: string, guidance: string, revisedUser: string | null = null): MessageStep {
  return json({ critique, revisedUser, guidance });
}

/** The system prompt of a recorded request as one string ('' when it sent none). */
export function systemText(request: RecordedRequest | undefined): string {
  if (request === undefined) throw new Error('expected a recorded request');
  const system = request.body.system;
  if (system === undefined) return '';
  if (typeof system === 'string') return system;
  return system.map((block) => block.text).join('\n\n');
}

/** The text of the `# Lessons from a failed attempt` system block of a request, or undefined. */
export function lessonsBlock(request: RecordedRequest | undefined): string | undefined {
  if (request === undefined) throw new Error('expected a recorded request');
  const system = request.body.system;
  if (system === undefined || typeof system === 'string') return undefined;
  return system.find((block) => block.text.startsWith(LESSONS_HEADING))?.text;
}

/** Every node of a subtree, depth first, parents before children. */
export function allNodes(root: WorkflowNode): WorkflowNode[] {
  const out: WorkflowNode[] = [];
  const visit = (node: WorkflowNode): void => {
    out.push(node);
    for (const child of node.children) visit(child);
  };
  visit(root);
  return out;
}

/** The nodes of one kind in a subtree, in tree order. */
export function nodesOfKind(root: WorkflowNode, kind: WorkflowNode['kind']): WorkflowNode[] {
  return allNodes(root).filter((node) => node.kind === kind);
}

/** The children of `parent` of one kind, in order. */
export function childrenOfKind(parent: WorkflowNode, kind: WorkflowNode['kind']): WorkflowNode[] {
  return parent.children.filter((child) => child.kind === kind);
}

/** `kind:name` of each child, in order: a compact picture of one level of the tree. */
export function shape(parent: WorkflowNode): string[] {
  return parent.children.map((child) => `${child.kind}:${child.name}`);
}
