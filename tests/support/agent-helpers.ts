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
  type Workflow,
  type WorkflowContext,
  type WorkflowNode,
} from 'groundswell';
import type { RecordedRequest } from 'groundswell/testing';
import { record, type Recording } from './events.js';
import { FakeClock } from './fake-clock.js';

/** The answer shape most agent tests ask for. */
export const Answer = z.object({ answer: z.string() });
export type Answer = z.output<typeof Answer>;

/** A tool that adds two numbers; `calls` records every input it ran with. */
export function adder(): { tool: ReturnType<typeof defineAdd>; calls: Array<{ a: number; b: number }> } {
  const calls: Array<{ a: number; b: number }> = [];
  return { tool: defineAdd(calls), calls };
}

function defineAdd(calls: Array<{ a: number; b: number }>) {
  return defineTool({
    name: 'add',
    description: 'Adds two numbers.',
    input: z.object({ a: z.number(), b: z.number() }),
    execute: (input) => {
      calls.push(input);
      return input.a + input.b;
    },
  });
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
 * A functional workflow with a fake clock and a recorder whose one step `stepName` runs `body`.
 * Resolves once the run settled (never rejects); `outcome` says how it ended.
 */
export async function runInStep<R>(
  body: (ctx: WorkflowContext, clock: FakeClock) => Promise<R>,
  stepName = 'ask',
): Promise<StepRun<R> & { outcome: { ok: true; value: R } | { ok: false; error: unknown } }> {
  const clock = new FakeClock();
  const workflow = createWorkflow<R>({ name: 'flow', clock }, (ctx) => ctx.step(stepName, () => body(ctx, clock)));
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
