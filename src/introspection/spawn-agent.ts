import type { z } from 'zod';
import { lazySchema } from '../util/lazy-schema.js';
import { Agent } from '../agent/agent.js';
import { createPrompt, type Prompt } from '../agent/prompt.js';
import { errorMessage } from '../util/describe.js';
import { toJsonSafe } from '../util/json-safe.js';
import type { Caller } from './caller.js';
import { IntrospectionError } from './introspection-error.js';
import { lookup } from './registry.js';
import { reserveSpawn, type SpawnLimits } from './spawn-limits.js';

/** The answer shape of a spawned agent call when its registration names none. */
export const DEFAULT_SPAWN_ANSWER = lazySchema((z) => z.object({ answer: z.string() }));

/** A registered agent with the answer schema its spawned calls use and a description for the model. */
export interface SpawnableAgent {
  agent: Agent;
  /** Default `DEFAULT_SPAWN_ANSWER`: `{ answer: string }`. */
  responseFormat?: z.ZodType;
  description?: string;
}

export type AgentRegistry = Readonly<Record<string, Agent | SpawnableAgent>>;

export interface SpawnedAgentCall {
  agent: string;
  /** The agentPrompt node of the spawned call. */
  nodeId: string | null;
  /** The tool call node it mounted under. */
  mountedUnder: string;
  spawnDepth: number;
  answer: unknown;
  turns: number;
}

export function agentEntryOf(entry: Agent | SpawnableAgent): SpawnableAgent {
  return entry instanceof Agent ? { agent: entry } : entry;
}

/** Asks the registered agent; its call mounts under the caller's tool node like any nested call. */
export async function spawnAgent(
  caller: Caller,
  registry: AgentRegistry,
  name: string,
  request: { user: string; data?: Record<string, unknown> },
  limits: Readonly<Required<SpawnLimits>>,
): Promise<SpawnedAgentCall> {
  const entry = agentEntryOf(lookup(registry, name, 'agent'));
  if (!(entry.agent instanceof Agent)) {
    throw new IntrospectionError(`The entry registered as agent "${name}" has no Agent (expected an Agent or { agent, responseFormat? }).`);
  }
  const { depth } = reserveSpawn(caller, limits);
  const prompt = buildPrompt(name, entry, request);
  const before = new Set(caller.node.children);
  try {
    const result = await entry.agent.execute(prompt);
    return {
      agent: name,
      nodeId: newCallNode(caller, before),
      mountedUnder: caller.node.id,
      spawnDepth: depth,
      answer: toJsonSafe(result.value) ?? null,
      turns: result.turns,
    };
  } catch (error) {
    const nodeId = newCallNode(caller, before);
    throw new IntrospectionError(
      `Agent "${name}" failed${nodeId === null ? '' : ` (node ${nodeId})`}: ${errorMessage(error)}`,
      { cause: error },
    );
  }
}

function buildPrompt(name: string, entry: SpawnableAgent, request: { user: string; data?: Record<string, unknown> }): Prompt {
  try {
    return createPrompt({
      user: request.user,
      responseFormat: entry.responseFormat ?? DEFAULT_SPAWN_ANSWER,
      ...(request.data !== undefined ? { data: request.data } : {}),
    });
  } catch (error) {
    throw new IntrospectionError(`Could not build the prompt for agent "${name}": ${errorMessage(error)}`, { cause: error });
  }
}

/** The agentPrompt node the spawned call added under the tool node. */
function newCallNode(caller: Caller, before: ReadonlySet<unknown>): string | null {
  const added = caller.node.children.filter((child) => child.kind === 'agentPrompt' && !before.has(child));
  return added.at(-1)?.id ?? null;
}
