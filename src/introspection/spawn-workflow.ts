import type { z } from 'zod';
import { Workflow } from '../core/workflow.js';
import { describeValue, errorMessage } from '../util/describe.js';
import { toJsonSafe } from '../util/json-safe.js';
import type { Caller } from './caller.js';
import { IntrospectionError } from './introspection-error.js';
import { lookup } from './registry.js';
import { reserveSpawn, type SpawnLimits } from './spawn-limits.js';
import { validateSpawnableWorkflow } from './spawnable-workflow.schema.js';

/** Builds a fresh workflow for one spawn request, from the model's `input`. */
export type WorkflowFactory = (input: unknown) => Workflow | Promise<Workflow>;

/**
 * A registered workflow with a description for the model and, optionally, a zod schema the model's
 * input must pass before `create` sees it (an invalid one is a tool error). Declare it with
 * `defineSpawnableWorkflow` to get `create`'s input typed from the schema.
 */
export interface SpawnableWorkflow<S extends z.ZodType = z.ZodType> {
  // Method syntax on purpose: a registry holds entries with different schemas.
  create(input: z.output<S>): Workflow | Promise<Workflow>;
  description?: string;
  input?: S;
}

/** Declares a registry entry, with `create`'s input inferred from the `input` schema. */
export function defineSpawnableWorkflow<S extends z.ZodType>(entry: SpawnableWorkflow<S> & { input: S }): SpawnableWorkflow<S> {
  validateSpawnableWorkflow(entry);
  return Object.freeze({ ...entry });
}

export type WorkflowRegistry = Readonly<Record<string, WorkflowFactory | SpawnableWorkflow>>;

export interface SpawnedWorkflow {
  workflow: { id: string; name: string; status: string };
  /** The tool call node the workflow mounted under. */
  mountedUnder: string;
  /** 1 for a spawn by the first agent call, 2 for a spawn from inside a spawned one, ... */
  spawnDepth: number;
  result: unknown;
}

export function entryOf(entry: WorkflowFactory | SpawnableWorkflow): SpawnableWorkflow {
  return typeof entry === 'function' ? { create: entry } : entry;
}

/**
 * Creates the registered workflow and runs it as a child of the caller's workflow, mounted under
 * the caller's tool node, so its events reach the root's observers like any other child's.
 */
export async function spawnWorkflow(
  caller: Caller,
  registry: WorkflowRegistry,
  name: string,
  input: unknown,
  limits: Readonly<Required<SpawnLimits>>,
): Promise<SpawnedWorkflow> {
  const entry = entryOf(lookup(registry, name, 'workflow'));
  if (typeof entry?.create !== 'function') {
    throw new IntrospectionError(`The entry registered as workflow "${name}" has no create(input) function.`);
  }
  let accepted = input;
  if (entry.input !== undefined) {
    const parsed = entry.input.safeParse(input);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
      throw new IntrospectionError(`Invalid input for workflow "${name}": ${issues.join('; ')}`);
    }
    accepted = parsed.data;
  }
  const { depth } = reserveSpawn(caller, limits);

  let workflow: unknown;
  try {
    workflow = await entry.create(accepted);
  } catch (error) {
    throw new IntrospectionError(`Could not create workflow "${name}": ${errorMessage(error)}`, { cause: error });
  }
  if (!(workflow instanceof Workflow)) {
    throw new IntrospectionError(`The factory registered as "${name}" returned ${describeValue(workflow)}, not a Workflow.`);
  }
  if (workflow.parent !== null && workflow.parent !== caller.workflow) {
    throw new IntrospectionError(
      `The factory registered as "${name}" returned workflow "${workflow.name}" (${workflow.id}), which already ` +
        `belongs to "${workflow.parent.name}"; a factory must return a new workflow.`,
    );
  }
  // Explicit rather than relying on run()'s auto-mount, so a `detached: true` config mounts too:
  // spawned work must stay in the caller's tree, where the limits and observers can see it.
  // The tool runs in its toolCall node's scope, so the workflow mounts under that node.
  if (workflow.parent === null) caller.workflow.attachChild(workflow);

  let result: unknown;
  try {
    result = await workflow.run();
  } catch (error) {
    throw new IntrospectionError(`Workflow "${name}" (${workflow.id}) ${workflow.status}: ${errorMessage(error)}`, { cause: error });
  }
  return {
    workflow: { id: workflow.id, name: workflow.name, status: workflow.status },
    mountedUnder: caller.node.id,
    spawnDepth: depth,
    result: toJsonSafe(result) ?? null,
  };
}
