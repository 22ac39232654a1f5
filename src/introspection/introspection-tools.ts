import { Agent } from '../agent/agent.js';
import type { Cache } from '../cache/cache.js';
import { getCurrentWorkflow } from '../core/ambient.js';
import { maskForRun } from '../core/run-secrets.js';
import { defineTool, type Tool } from '../tools/tool.js';
import type { WorkflowNode } from '../types/node.js';
import { lazySchema } from '../util/lazy-schema.js';
import { ancestorsOf, walkTree } from '../util/tree-walk.js';
import { boundedJson } from './bounded-json.js';
import { cacheStatus } from './cache-status.js';
import { findInRun, resolveCaller, type Caller } from './caller.js';
import { goalFieldsOf, nearestStep, summarize, workflowOf, workflowView, type NodeSummary } from './node-view.js';
import { priorOutputs } from './prior-outputs.js';
import { describeRegistry } from './registry.js';
import { agentEntryOf, spawnAgent, type AgentRegistry } from './spawn-agent.js';
import { resolveSpawnLimits, spawnDepthOf, type SpawnLimits } from './spawn-limits.js';
import { entryOf, spawnWorkflow, type WorkflowRegistry } from './spawn-workflow.js';
import { validateIntrospectionOptions } from './introspection-options.schema.js';

export const DEFAULT_INTROSPECTION_MAX_CHARS = 4_000;

/** The names the model sees, in the order `introspectionTools()` returns them. */
export const INTROSPECTION_TOOL_NAMES = [
  'inspect_current_node',
  'read_ancestor_chain',
  'list_siblings_children',
  'inspect_prior_outputs',
  'inspect_cache_status',
  'list_mount_points',
  'request_spawn_workflow',
  'request_spawn_agent',
] as const;

export type IntrospectionToolName = (typeof INTROSPECTION_TOOL_NAMES)[number];

export interface IntrospectionToolsOptions {
  /** Longest answer a tool sends back, in characters (default 4,000, at least 200). */
  maxChars?: number;
  /** For `inspect_cache_status`: the cache store, or an agent created with `cache`. */
  cache?: Cache | Agent;
  /**
   * Workflows `request_spawn_workflow` may create, by name (the tool is offered only when given).
   * Read when the tool runs, so entries may be added after the tools are created.
   */
  workflows?: WorkflowRegistry;
  /** Agents `request_spawn_agent` may ask, by name (the tool is offered only when given). Read when the tool runs. */
  agents?: AgentRegistry;
  limits?: SpawnLimits;
}

// Lists longer than this are cut to their newest entries before the size bound even applies, so
// a node with thousands of children costs the model one summary line, not a scan of them all.
const LIST_LIMIT = 50;

/**
 * Tools that let an agent see its place in the workflow tree and, with registries, spawn work
 * beneath itself: `tools: introspectionTools()`. Each tool reads the live tree of the call that
 * invoked it (the ambient workflow's root), sees nothing outside that tree, exposes only what
 * the tree already holds (state snapshots are redacted, hidden fields absent), and answers with
 * JSON of at most `maxChars` characters.
 */
export function introspectionTools(options: IntrospectionToolsOptions = {}): Tool[] {
  validateIntrospectionOptions(options);
  const maxChars = options.maxChars ?? DEFAULT_INTROSPECTION_MAX_CHARS;
  const limits = resolveSpawnLimits(options.limits);
  const { store, unavailable } = resolveCache(options.cache);
  const { workflows, agents } = options;
  // Masked before the size bound, so a cut never leaves part of a secret; also what the tree
  // does not hold (a workflow's declared goal) is masked with every secret the run knows.
  const answer = (value: unknown): string => {
    const workflow = getCurrentWorkflow();
    return boundedJson(workflow === undefined ? value : maskForRun(workflow, value), maxChars);
  };
  const limitNote = `Limits: spawns nest at most ${limits.maxDepth} deep below the first agent call, at most ${limits.maxSpawnsPerRun} per run.`;

  const tools: Tool[] = [
    defineTool({
      name: 'inspect_current_node',
      description:
        'Where this agent call sits in the workflow tree: its own node, the step and workflow it runs in ' +
        '(status, timing, goal, redacted state snapshot) and the root. Node ids work with the other introspection tools.',
      input: lazySchema((z) => z.object({})),
      execute: () => answer(currentNode(resolveCaller('inspect_current_node'))),
    }),
    defineTool({
      name: 'read_ancestor_chain',
      description:
        'The chain from this agent call up to the root workflow, nearest first: id, name, kind and status per level, ' +
        'plus mission/project/goal of workflows that declare them.',
      input: lazySchema((z) => z.object({})),
      execute: () => answer(ancestorChain(resolveCaller('read_ancestor_chain'))),
    }),
    defineTool({
      name: 'list_siblings_children',
      description:
        'Summaries of the siblings and children of a node of this run (default: the step this agent call runs in).',
      input: lazySchema((z) => z.object({
        nodeId: z.string().min(1).optional().describe('A node id from another introspection answer; default the current step.'),
      })),
      execute: ({ nodeId }) => answer(siblingsAndChildren(resolveCaller('list_siblings_children'), nodeId)),
    }),
    defineTool({
      name: 'inspect_prior_outputs',
      description:
        'Earlier finished work, most recent first: steps, tasks, agent calls, tool results, reflections and ' +
        "state snapshots of this workflow (scope 'run': the whole tree).",
      input: lazySchema((z) => z.object({
        limit: z.number().int().min(1).max(50).optional().describe('Entries to return (default 10).'),
        scope: z.enum(['workflow', 'run']).optional().describe("'workflow' (default) or 'run'."),
      })),
      execute: ({ limit, scope }) =>
        answer(priorOutputs(resolveCaller('inspect_prior_outputs'), scope ?? 'workflow', limit ?? 10)),
    }),
    defineTool({
      name: 'inspect_cache_status',
      description: 'Prompt-cache status: the cache store metrics if one is configured, and cache hit/miss counts (misses by reason) in this workflow and run.',
      input: lazySchema((z) => z.object({})),
      execute: () => answer(cacheStatus(resolveCaller('inspect_cache_status'), store, unavailable)),
    }),
    defineTool({
      name: 'list_mount_points',
      description:
        'Running workflow, step and task nodes of this run where new work could be mounted, and the node ' +
        'that work spawned by this call mounts under.',
      input: lazySchema((z) => z.object({})),
      execute: () => answer(mountPoints(resolveCaller('list_mount_points'))),
    }),
  ];

  if (workflows !== undefined) {
    const listed = describeRegistry(Object.entries(workflows).map(([name, entry]) => [name, entryOf(entry).description]));
    tools.push(
      defineTool({
        name: 'request_spawn_workflow',
        description:
          'Create and run a registered workflow as a child of this call (it mounts under this tool call) and return its result.' +
          (listed === '' ? '' : `\nRegistered workflows:\n${listed}`) +
          `\n${limitNote}`,
        input: lazySchema((z) => z.object({
          name: z.string().min(1).describe('The registered workflow name.'),
          input: z.unknown().optional().describe('Input for the workflow (JSON).'),
        })),
        execute: async ({ name, input }) =>
          answer(await spawnWorkflow(resolveCaller('request_spawn_workflow'), workflows, name, input, limits)),
      }),
    );
  }
  if (agents !== undefined) {
    const listed = describeRegistry(Object.entries(agents).map(([name, entry]) => [name, agentEntryOf(entry).description]));
    tools.push(
      defineTool({
        name: 'request_spawn_agent',
        description:
          'Ask a registered agent one question as a child of this call (it mounts under this tool call) and return its structured answer.' +
          (listed === '' ? '' : `\nRegistered agents:\n${listed}`) +
          `\n${limitNote}`,
        input: lazySchema((z) => z.object({
          agent: z.string().min(1).describe('The registered agent name.'),
          user: z.string().min(1).describe('The question or instruction for that agent.'),
          data: z.record(z.string(), z.unknown()).optional().describe('Structured input sent with the message.'),
        })),
        execute: async ({ agent, user, data }) =>
          answer(
            await spawnAgent(resolveCaller('request_spawn_agent'), agents, agent, data === undefined ? { user } : { user, data }, limits),
          ),
      }),
    );
  }
  return tools;
}

function currentNode(caller: Caller): unknown {
  const now = caller.workflow.clock.now();
  const { call, root } = caller;
  const parent = call.parent;
  const step = parent === null ? undefined : nearestStep(parent);
  return {
    call: summarize(call, now),
    toolCallId: caller.node === call ? null : caller.node.id,
    step: step === undefined ? null : summarize(step, now),
    // Only when the call does not hang directly under its step: a call in a workflow body, or a
    // spawned call under another call's tool node.
    ...(parent !== null && parent !== step ? { parent: summarize(parent, now) } : {}),
    workflow: workflowView(caller.workflow, now),
    root: { id: root.id, name: root.name, status: root.status },
    depth: ancestorsOf(call).length,
    spawnDepth: spawnDepthOf(caller.node),
  };
}

function ancestorChain(caller: Caller): unknown {
  const levels = [caller.call, ...ancestorsOf(caller.call)].map((node) => {
    const level: Record<string, unknown> = { id: node.id, name: node.name, kind: node.kind, status: node.status };
    const workflow = node.kind === 'workflow' ? workflowOf(node) : undefined;
    if (workflow !== undefined) Object.assign(level, goalFieldsOf(workflow));
    return level;
  });
  return { levels: levels.length, chain: levels };
}

function siblingsAndChildren(caller: Caller, nodeId: string | undefined): unknown {
  const now = caller.workflow.clock.now();
  const node = nodeId === undefined ? (caller.call.parent ?? caller.call) : findInRun(caller, nodeId);
  const parent = node.parent;
  const siblings = parent === null ? [] : parent.children.filter((child) => child !== node);
  return {
    node: summarize(node, now),
    parent: parent === null ? null : summarize(parent, now),
    siblings: newest(siblings, now),
    siblingsTotal: siblings.length,
    children: newest(node.children, now),
    childrenTotal: node.children.length,
    prunedChildren: node.dropped.children,
  };
}

function mountPoints(caller: Caller): unknown {
  const now = caller.workflow.clock.now();
  const points: Array<NodeSummary & { depth: number }> = [];
  for (const node of walkTree<WorkflowNode>(caller.root.node)) {
    if (node.status !== 'running' || (node.kind !== 'workflow' && node.kind !== 'step' && node.kind !== 'task')) continue;
    points.push({ ...summarize(node, now), depth: ancestorsOf(node).length });
  }
  return {
    spawnsMountUnder: caller.node.id,
    total: points.length,
    mountPoints: points.slice(-LIST_LIMIT),
  };
}

/** The newest `LIST_LIMIT` nodes of a list, summarised. */
function newest(nodes: readonly WorkflowNode[], now: number): NodeSummary[] {
  return nodes.slice(-LIST_LIMIT).map((node) => summarize(node, now));
}

function resolveCache(cache: Cache | Agent | undefined): { store: Cache | undefined; unavailable: string | undefined } {
  if (cache === undefined) return { store: undefined, unavailable: undefined };
  if (cache instanceof Agent) {
    if (cache.config.cache !== undefined) return { store: cache.config.cache, unavailable: undefined };
    return {
      store: undefined,
      unavailable:
        `Agent "${cache.name}" was created without a \`cache\`, and its default in-memory cache is private, so its ` +
        'metrics are unknown; the event counts below still show hits and misses in this run.',
    };
  }
  return { store: cache, unavailable: undefined };
}


