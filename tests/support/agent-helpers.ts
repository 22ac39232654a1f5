import type {
  ContentBlockParam,
  MessageParam,
  ToolResultBlockParam,
  ToolUseBlockParam,
} from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import {
  createWorkflow,
  defineTool,
  type Tool,
  type Workflow,
  type WorkflowContext,
  type WorkflowNode,
} from 'groundswell';
import type { RecordedRequest, RequestBody } from 'groundswell/testing';
import { record, type Recording } from './events.js';
import { FakeClock } from './fake-clock.js';

/** The answer shape most agent tests ask for. */
export const Answer = z.object({ answer: z.string() });
export type Answer = z.output<typeof Answer>;

export const AddInput = z.object({ a: z.number(), b: z.number() });

/** A tool that adds two numbers; `calls` records every input it ran with. */
export function adder(): { tool: Tool<typeof AddInput>; calls: Array<z.output<typeof AddInput>> } {
  const calls: Array<z.output<typeof AddInput>> = [];
  const tool = defineTool({
    name: 'add',
    description: 'Adds two numbers.',
    input: AddInput,
    execute: (input) => {
      calls.push(input);
      return input.a + input.b;
    },
  });
  return { tool, calls };
}

/** Every node of a subtree that is still running (none should be, once a call has settled). */
export function runningNodes(root: WorkflowNode): string[] {
  const out: string[] = [];
  const stack: WorkflowNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as WorkflowNode;
    if (node.status === 'running') out.push(`${node.kind}:${node.name}`);
    stack.push(...node.children);
  }
  return out;
}

/** The messages a recorded Messages API request carried. */
export function messagesOf(request: RecordedRequest | undefined): MessageParam[] {
  if (request === undefined) throw new Error('expected a recorded request');
  return request.body.messages ?? [];
}

function blocksOf(message: MessageParam | undefined): ContentBlockParam[] {
  if (message === undefined || typeof message.content === 'string') return [];
  return [...message.content];
}

/** The tool_result blocks of the last message of a request (what the tools sent back). */
export function toolResultsOf(request: RecordedRequest | undefined): ToolResultBlockParam[] {
  return blocksOf(messagesOf(request).at(-1)).filter(
    (block): block is ToolResultBlockParam => block.type === 'tool_result',
  );
}

/** The tool_use blocks of the assistant message before the last user message of a request. */
export function toolUsesSentBack(request: RecordedRequest | undefined): ToolUseBlockParam[] {
  return blocksOf(messagesOf(request).at(-2)).filter((block): block is ToolUseBlockParam => block.type === 'tool_use');
}

/** A tool_result's content as text (groundswell always sends a string). */
export function resultText(block: ToolResultBlockParam | undefined): string {
  if (block === undefined) throw new Error('expected a tool_result block');
  if (typeof block.content !== 'string') throw new Error(`expected string content, got ${JSON.stringify(block.content)}`);
  return block.content;
}

export interface StepRun<R> {
  workflow: Workflow<R>;
  recording: Recording;
  clock: FakeClock;
  /** The step node the body ran in. */
  step: WorkflowNode;
}

/**
 * A functional workflow (fake clock, recorder attached) whose one step `stepName` runs `body`.
 * Resolves once the run settled (it never rejects); `outcome` says how it ended.
 */
export async function runInStep<R>(
  body: (ctx: WorkflowContext) => Promise<R>,
  options: { stepName?: string; clock?: FakeClock } = {},
): Promise<StepRun<R> & { outcome: { ok: true; value: R } | { ok: false; error: unknown } }> {
  const stepName = options.stepName ?? 'ask';
  const clock = options.clock ?? new FakeClock();
  const workflow = createWorkflow<R>({ name: 'flow', clock }, (ctx) => ctx.step(stepName, () => body(ctx)));
  const recording = record(workflow);
  let outcome: { ok: true; value: R } | { ok: false; error: unknown };
  try {
    outcome = { ok: true, value: await workflow.run() };
  } catch (error) {
    outcome = { ok: false, error };
  }
  const step = workflow.node.children.find((child) => child.name === stepName);
  if (step === undefined) throw new Error(`expected a step node "${stepName}"`);
  return { workflow, recording, clock, step, outcome };
}

/** The error of a run that was expected to fail. */
export function failed<R>(outcome: { ok: true; value: R } | { ok: false; error: unknown }): unknown {
  if (outcome.ok) throw new Error(`expected the run to fail, it resolved to ${JSON.stringify(outcome.value)}`);
  return outcome.error;
}

/** The only child of `parent` of this kind (fails loudly when missing or ambiguous). */
export function onlyChild(parent: WorkflowNode, kind: WorkflowNode['kind']): WorkflowNode {
  const found = parent.children.filter((child) => child.kind === kind);
  if (found.length !== 1) throw new Error(`expected one ${kind} under "${parent.name}", found ${found.length}`);
  return found[0] as WorkflowNode;
}

/** A copy of process.env, for showing an agent call left it as it was. */
export function envSnapshot(): Record<string, string | undefined> {
  return { ...process.env };
}

/** The names of the tools a request offered (undefined when it sent no `tools` field). */
export function toolNamesOf(body: RequestBody): string[] | undefined {
  return body.tools?.map((tool) => ('name' in tool ? tool.name : `(${tool.type})`));
}
