import { UsageError } from '../../errors/groundswell-error.js';
import { readProperty } from '../../util/describe.js';
import { assertConfig } from '../../checks/assert-config.js';
import { flag, hasMethods, integer, nonEmptyText, text } from '../../checks/fields.js';
import { expected } from '../../checks/leaf.js';
import { strict } from '../../checks/object.js';
import { received } from '../../checks/received.js';
import { providersSchema } from '../../checks/providers.schema.js';
import { budgetSchema } from '../../budgets/budget.schema.js';
import { errorMergeSchema } from './error-merge.js';
import { workflowReflectionSchema } from './workflow-reflection.js';

const workflowConfigSchema = strict(
  {
    name: nonEmptyText.optional(),
    mission: text.optional(),
    project: text.optional(),
    goal: text.optional(),
    plan: nonEmptyText.optional(),
    enableReflection: workflowReflectionSchema.optional(),
    errorMergeStrategy: errorMergeSchema.optional(),
    clock: expected('a Clock (an object with now() and sleep(ms, signal) methods)', (v) => hasMethods(v, 'now', 'sleep')).optional(),
    retention: strict(
      { maxEventsPerNode: integer(0).optional(), maxLogsPerNode: integer(0).optional(), maxChildrenPerNode: integer(0).optional() },
      'an object like { maxEventsPerNode: 1000 }',
    ).optional(),
    detached: flag.optional(),
    budget: budgetSchema.optional(),
    providers: providersSchema.optional(),
    streamText: flag.optional(),
    durable: strict(
      {
        store: expected('a RunStore (new JournalRunStore() from groundswell/durable, or new PostgresRunStore() from groundswell/postgres)', (v) =>
          hasMethods(v, 'createRun', 'loadRun', 'putStep', 'acquireLease'),
        ),
        runId: nonEmptyText.optional(),
        input: expected('JSON input', () => true).optional(),
        leaseMs: integer(1_000).optional(),
      },
      'an object like { store }',
    ).optional(),
  },
  'a name or a config object',
);

/**
 * `new Workflow(nameOrConfig, executorOrParent)` and `createWorkflow(config, executor)`. `className`
 * names the workflow in messages when the config does not.
 */
export function validateWorkflowArgs(nameOrConfig: unknown, second: unknown, className: string): void {
  if ((second === undefined || typeof second === 'function') && isNameOnly(nameOrConfig)) return;
  const named = typeof nameOrConfig === 'object' && nameOrConfig !== null ? readProperty(nameOrConfig, 'name') : nameOrConfig;
  const label = `Workflow ${JSON.stringify(typeof named === 'string' && named !== '' ? named : className)}`;
  if (typeof nameOrConfig === 'string') assertConfig(nonEmptyText, nameOrConfig, label, 'name');
  else if (nameOrConfig !== undefined) assertConfig(workflowConfigSchema, nameOrConfig, label);
  // A parent is duck-typed: this module must not import Workflow (it is imported by it).
  if (second !== undefined && typeof second !== 'function' && !hasMethods(second, 'attachChild', 'detachChild')) {
    throw new UsageError(`${label}: the second argument must be an executor function or a parent Workflow, got ${received(second)}.`);
  }
}

/**
 * `{ name: 'text' }` and nothing else, a plain object (the usual functional child of a loop): valid
 * at a glance, without running the schema for every child. Anything else, or anything that throws
 * while looked at (a proxy), takes the full check and its message.
 */
function isNameOnly(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  try {
    if (Object.getPrototypeOf(value) !== Object.prototype) return false;
    let keys = 0;
    for (const key in value) {
      if (key !== 'name') return false;
      keys += 1;
    }
    const name: unknown = (value as { name?: unknown }).name;
    return keys === 1 && typeof name === 'string' && name.trim() !== '';
  } catch {
    return false;
  }
}
