import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  defineTool,
  type Agent,
  type AgentConfig,
  type Prompt,
  type Tool,
  type Workflow,
  type WorkflowNode,
} from 'groundswell';
import { json, ScriptedModel, toolUse, type MessageStep, type RecordedRequest, type ScriptStep } from 'groundswell/testing';
import { eventsOfType, record, type EventOf, type Recording } from '../support/events.js';
import { FakeClock } from '../support/fake-clock.js';
import { agentModel, providerPath } from '../support/model-path.js';

export const HEADING = '[TRAJECTORY CHECKPOINT]';
export const ENV_VAR = 'GROUNDSWELL_TRAJECTORY_CHECKPOINT';
export const ORIGINAL = 'int main() { return 0; }';
export const SYSTEM = 'You edit code.';
export const GOAL = 'Make pal.cpp return 1';

export const Done = z.object({ done: z.boolean() });

export function fixPrompt(user = 'Fix pal.cpp'): Prompt<{ done: boolean }> {
  return createPrompt({ name: 'fix', user, responseFormat: Done });
}

const PathInput = z.object({ path: z.string() });
const WriteInput = z.object({ path: z.string(), content: z.string() });
const EditInput = z.object({ path: z.string(), find: z.string(), replace: z.string() });

export interface FileTools {
  files: Map<string, string>;
  /** Whole-file write; the guard rejects it for a file that already exists. */
  fileWrite: Tool<typeof WriteInput>;
  fileRead: Tool<typeof PathInput>;
  fileEdit: Tool<typeof EditInput>;
  all: Tool[];
  /** Every call that reached a tool's execute, as `name path`. */
  executed: string[];
}

/** An in-memory file system with the seed's three tools, each declaring its effect and target. */
export function fileTools(initial: Record<string, string> = { 'pal.cpp': ORIGINAL }): FileTools {
  const files = new Map(Object.entries(initial));
  const executed: string[] = [];
  const fileWrite = defineTool({
    name: 'file_write',
    description: 'Write a whole file.',
    effect: 'mutate',
    target: (input) => input.path,
    input: WriteInput,
    execute: ({ path, content }) => {
      executed.push(`file_write ${path}`);
      if (files.has(path)) throw new Error(`${path} exists: an unguarded full rewrite of an existing file is refused`);
      files.set(path, content);
      return 'written';
    },
  });
  const fileRead = defineTool({
    name: 'file_read',
    description: 'Read a file.',
    effect: 'read',
    target: (input) => input.path,
    input: PathInput,
    execute: ({ path }) => {
      executed.push(`file_read ${path}`);
      const content = files.get(path);
      if (content === undefined) throw new Error(`${path} does not exist`);
      return content;
    },
  });
  const fileEdit = defineTool({
    name: 'file_edit',
    description: 'Replace text in a file.',
    effect: 'mutate',
    target: (input) => input.path,
    input: EditInput,
    execute: ({ path, find, replace }) => {
      executed.push(`file_edit ${path}`);
      const content = files.get(path) ?? '';
      if (!content.includes(find)) throw new Error(`"${find}" not found in ${path}`);
      files.set(path, content.replace(find, replace));
      return 'edited';
    },
  });
  const all: Tool[] = [fileWrite, fileRead, fileEdit];
  return { files, fileWrite, fileRead, fileEdit, all, executed };
}

/** The seed's reference failure: two full rewrites with changed payloads, then read, edit, answer. */
export function referenceScript(): MessageStep[] {
  return [
    toolUse('file_write', { path: 'pal.cpp', content: 'int main() { return 1; } // v1' }),
    toolUse('file_write', { path: 'pal.cpp', content: 'int main() {\n  return 1;\n} // v2' }),
    toolUse('file_read', { path: 'pal.cpp' }),
    toolUse('file_edit', { path: 'pal.cpp', find: 'return 0', replace: 'return 1' }),
    json({ done: true }),
  ];
}

export interface Harness {
  model: ScriptedModel;
  agent: Agent;
  tools: FileTools;
}

/** A scripted model and an agent with the file tools talking to it. */
export async function harness(
  script: readonly ScriptStep[],
  config: Omit<AgentConfig, 'client' | 'name' | 'tools'> & { name?: string } = {},
  tools: FileTools = fileTools(),
): Promise<Harness> {
  const model = new ScriptedModel(script);
  const agent = createAgent({ name: 'coder', system: SYSTEM, tools: tools.all, ...config, ...(await agentModel(model)) });
  return { model, agent, tools };
}

export interface Run<R> {
  workflow: Workflow<R>;
  recording: Recording;
  value: R;
  checkpoints: Array<EventOf<'trajectoryCheckpoint'>>;
  /** The agentPrompt node of the (only, outermost) agent call. */
  promptNode: WorkflowNode;
}

/** Runs `body` in one step of a workflow declaring `goal` (fake clock, recorder attached). */
export async function runInGoal<R>(body: () => Promise<R>, goal: string = GOAL): Promise<Run<R>> {
  const workflow = createWorkflow<R>({ name: 'fix', goal, clock: new FakeClock() }, (ctx) => ctx.step('fix', body));
  const recording = record(workflow);
  const value = await workflow.run();
  return { workflow, recording, value, checkpoints: eventsOfType(recording.events, 'trajectoryCheckpoint'), promptNode: agentPromptNode(workflow.node) };
}

/** The first agentPrompt node of a subtree, depth first. */
export function agentPromptNode(root: WorkflowNode): WorkflowNode {
  const stack: WorkflowNode[] = [root];
  while (stack.length > 0) {
    const node = stack.shift() as WorkflowNode;
    if (node.kind === 'agentPrompt') return node;
    stack.push(...node.children);
  }
  throw new Error('expected an agentPrompt node');
}

/**
 * The system of a request as text blocks (a plain string becomes one block; none is []). The
 * provider path sends the blocks joined by blank lines as one system message, which the server
 * records as one block: that block is split again before the checkpoint heading, so a checkpoint
 * reads as its own last block on both paths.
 */
export function systemBlocks(request: RecordedRequest | undefined): TextBlockParam[] {
  if (request === undefined) throw new Error('expected a recorded request');
  const system = request.body.system;
  if (system === undefined) return [];
  if (typeof system === 'string') return [{ type: 'text', text: system }];
  if (!providerPath || system.length !== 1) return [...system];
  const text = system[0]?.text ?? '';
  const at = text.startsWith(HEADING) ? 0 : text.indexOf(`\n\n${HEADING}`);
  if (at < 0) return [...system];
  if (at === 0) return [{ type: 'text', text }];
  return [
    { type: 'text', text: text.slice(0, at) },
    { type: 'text', text: text.slice(at + 2) },
  ];
}

/** The checkpoint blocks of a request's system (the feature promises at most one). */
export function checkpointBlocks(request: RecordedRequest | undefined): TextBlockParam[] {
  return systemBlocks(request).filter((block) => block.text.includes(HEADING));
}

/** The text of the request's only checkpoint block, or undefined when it has none. */
export function checkpointOf(request: RecordedRequest | undefined): string | undefined {
  const blocks = checkpointBlocks(request);
  if (blocks.length > 1) throw new Error(`expected at most one checkpoint block, found ${blocks.length}`);
  return blocks[0]?.text;
}

/** How often `needle` occurs in `haystack`. */
export function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/** The raw body of a request, as it went over the wire. */
export function rawBodyOf(request: RecordedRequest | undefined): string {
  if (request?.rawBody === undefined) throw new Error('expected a raw request body');
  return request.rawBody;
}

/** Sets (or, with undefined, deletes) an environment variable for the duration of `fn`, then restores it. */
export async function withEnv<R>(name: string, value: string | undefined, fn: () => Promise<R> | R): Promise<R> {
  const had = Object.prototype.hasOwnProperty.call(process.env, name);
  const before = process.env[name];
  if (value === undefined) delete process.env[name];
  else process.env[name] = value;
  try {
    return await fn();
  } finally {
    if (had && before !== undefined) process.env[name] = before;
    else delete process.env[name];
  }
}
