import type { ContentBlockParam, MessageParam, ToolResultBlockParam, ToolUnion } from '@anthropic-ai/sdk/resources/messages';
import {
  createWorkflow,
  type Workflow,
  type WorkflowContext,
  type WorkflowEvent,
  type WorkflowEventType,
  type WorkflowNode,
} from 'groundswell';
import type { RecordedRequest } from 'groundswell/testing';
import { allNodes } from './core-helpers.js';
import { eventsOfType, record, type EventOf, type Recording } from './events.js';

/** How a run ended; a run never rejects out of `runFlow`. */
export type Outcome<R> = { ok: true; value: R } | { ok: false; error: unknown };

export interface FlowRun<R> {
  workflow: Workflow<R>;
  recording: Recording;
  outcome: Outcome<R>;
}

/** Runs a functional workflow with a recorder attached to its root and reports how it ended. */
export async function runFlow<R>(body: (ctx: WorkflowContext) => Promise<R>, name = 'flow'): Promise<FlowRun<R>> {
  const workflow = createWorkflow<R>({ name }, body);
  const recording = record(workflow);
  let outcome: Outcome<R>;
  try {
    outcome = { ok: true, value: await workflow.run() };
  } catch (error) {
    outcome = { ok: false, error };
  }
  return { workflow, recording, outcome };
}

export function valueOf<R>(outcome: Outcome<R>): R {
  if (!outcome.ok) throw new Error(`expected the run to succeed, it failed with ${String(outcome.error)}`, { cause: outcome.error });
  return outcome.value;
}

export function errorOf<R>(outcome: Outcome<R>): unknown {
  if (outcome.ok) throw new Error(`expected the run to fail, it resolved to ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

/** Every node of the tree that is still `running`, as `kind:name`. */
export function stillRunning(root: WorkflowNode): string[] {
  return allNodes(root)
    .filter((node) => node.status === 'running')
    .map((node) => `${node.kind}:${node.name}`);
}

export function nodesOfKind(root: WorkflowNode, kind: WorkflowNode['kind']): WorkflowNode[] {
  return allNodes(root).filter((node) => node.kind === kind);
}

/** The one node of `kind` in the tree (fails loudly when there are none or several). */
export function onlyNodeOfKind(root: WorkflowNode, kind: WorkflowNode['kind']): WorkflowNode {
  const found = nodesOfKind(root, kind);
  if (found.length !== 1) throw new Error(`expected exactly one ${kind} node, found ${found.length}`);
  return found[0] as WorkflowNode;
}

/** The events of one type a node itself holds. */
export function eventsOn<K extends WorkflowEventType>(node: WorkflowNode, type: K): EventOf<K>[] {
  return eventsOfType(node.events, type);
}

/** The one event of a type a node holds. */
export function onlyEventOn<K extends WorkflowEventType>(node: WorkflowNode, type: K): EventOf<K> {
  const found = eventsOn(node, type);
  if (found.length !== 1) throw new Error(`expected one ${type} event on "${node.name}", found ${found.length}`);
  return found[0] as EventOf<K>;
}

/** The one event of a type among recorded events. */
export function onlyEvent<K extends WorkflowEventType>(events: readonly WorkflowEvent[], type: K): EventOf<K> {
  const found = eventsOfType(events, type);
  if (found.length !== 1) throw new Error(`expected one ${type} event, found ${found.length}`);
  return found[0] as EventOf<K>;
}

/** The messages a recorded request carried. */
export function messagesOf(request: RecordedRequest | undefined): MessageParam[] {
  if (request === undefined) throw new Error('expected a recorded request');
  return request.body.messages ?? [];
}

/** The tool_result blocks of a request's last message. */
export function toolResultsOf(request: RecordedRequest | undefined): ToolResultBlockParam[] {
  const last = messagesOf(request).at(-1);
  if (last === undefined || typeof last.content === 'string') return [];
  const blocks: ContentBlockParam[] = [...last.content];
  return blocks.filter((block): block is ToolResultBlockParam => block.type === 'tool_result');
}

/** Whether the request is answering tool results (its last message carries tool_result blocks). */
export function isToolResultTurn(request: RecordedRequest): boolean {
  return toolResultsOf(request).length > 0;
}

/** A tool_result's content as text (groundswell always sends a string). */
export function resultText(block: ToolResultBlockParam | undefined): string {
  if (block === undefined) throw new Error('expected a tool_result block');
  if (typeof block.content !== 'string') throw new Error(`expected string content, got ${JSON.stringify(block.content)}`);
  return block.content;
}

/** Names of the tools a request offered the model. */
export function toolNamesOf(request: RecordedRequest | undefined): string[] {
  if (request === undefined) throw new Error('expected a recorded request');
  return (request.body.tools ?? []).map(toolName);
}

/** The tool definition a request offered under `name`. */
export function toolOffered(request: RecordedRequest | undefined, name: string): ToolUnion | undefined {
  if (request === undefined) throw new Error('expected a recorded request');
  return (request.body.tools ?? []).find((tool) => toolName(tool) === name);
}

function toolName(tool: ToolUnion): string {
  return 'name' in tool && typeof tool.name === 'string' ? tool.name : '(unnamed)';
}
