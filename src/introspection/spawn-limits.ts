import type { Workflow } from '../core/workflow.js';
import type { WorkflowNode } from '../types/node.js';
import type { Caller } from './caller.js';
import { SpawnLimitError } from './spawn-limit-error.js';

/** Bounds on what agents may spawn through `request_spawn_workflow` / `request_spawn_agent`. */
export interface SpawnLimits {
  /**
   * How deep spawns may nest below the first agent call (default 3): a spawned agent (or an agent
   * inside a spawned workflow) that spawns again is one level deeper. 0 forbids spawning.
   */
  maxDepth?: number;
  /** Spawns per run of the root workflow, all agents and depths together (default 10). */
  maxSpawnsPerRun?: number;
}

export const DEFAULT_SPAWN_LIMITS: Readonly<Required<SpawnLimits>> = Object.freeze({ maxDepth: 3, maxSpawnsPerRun: 10 });

// Shared by every introspectionTools() instance: a spawned agent usually gets its own tool set,
// and the limits must hold across all of them. Weak, so finished trees are not kept alive.
const spawnNodes = new WeakSet<WorkflowNode>();
const runCounts = new WeakMap<Workflow, { startTime: number | undefined; count: number }>();

/** The limits with defaults filled in (the options were checked by introspectionTools). */
export function resolveSpawnLimits(limits: SpawnLimits | undefined): Readonly<Required<SpawnLimits>> {
  if (limits === undefined) return DEFAULT_SPAWN_LIMITS;
  return Object.freeze({
    maxDepth: limits.maxDepth ?? DEFAULT_SPAWN_LIMITS.maxDepth,
    maxSpawnsPerRun: limits.maxSpawnsPerRun ?? DEFAULT_SPAWN_LIMITS.maxSpawnsPerRun,
  });
}

/** How many spawns the node sits beneath (0 for the first agent call's own tools). */
export function spawnDepthOf(node: WorkflowNode): number {
  let depth = 0;
  for (let n: WorkflowNode | null = node; n !== null; n = n.parent) if (spawnNodes.has(n)) depth += 1;
  return depth;
}

/**
 * Checks both limits and, if the spawn may go ahead, counts it for the run and marks the caller's
 * tool node as a spawn point (so work beneath it is one level deeper). Synchronous, so concurrent
 * tool calls cannot both take the last slot.
 */
export function reserveSpawn(caller: Caller, limits: Readonly<Required<SpawnLimits>>): { depth: number; spawnNumber: number } {
  const depth = spawnDepthOf(caller.node) + 1;
  if (depth > limits.maxDepth) {
    throw new SpawnLimitError(
      `Spawn refused by limit maxDepth (${limits.maxDepth}): this call is already ${depth - 1} spawn` +
        `${depth - 1 === 1 ? '' : 's'} deep below the first agent call; another spawn would nest ${depth} deep. ` +
        'Finish the work here instead.',
      'maxDepth',
      limits.maxDepth,
    );
  }
  const root = caller.root;
  const startTime = root.node.startTime;
  let counter = runCounts.get(root);
  // A new run of the same root starts with a fresh budget.
  if (counter === undefined || counter.startTime !== startTime) {
    counter = { startTime, count: 0 };
    runCounts.set(root, counter);
  }
  if (counter.count >= limits.maxSpawnsPerRun) {
    throw new SpawnLimitError(
      `Spawn refused by limit maxSpawnsPerRun (${limits.maxSpawnsPerRun}): this run of "${root.name}" has ` +
        `already spawned ${counter.count} workflow${counter.count === 1 ? '' : 's'}/agent${counter.count === 1 ? '' : 's'}.`,
      'maxSpawnsPerRun',
      limits.maxSpawnsPerRun,
    );
  }
  counter.count += 1;
  spawnNodes.add(caller.node);
  return { depth, spawnNumber: counter.count };
}
