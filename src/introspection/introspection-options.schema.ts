import type { Check } from '../checks/check.js';
import { MIN_ANSWER_CHARS } from './bounded-json.js';
import { assertConfig } from '../checks/assert-config.js';
import { expected, hasMethods, integer, isObject, strict } from '../checks/config-fields.js';

const registry = (what: string): Check => expected(`an object mapping names to ${what}`, isObject);

const introspectionOptionsSchema = strict(
  {
    maxChars: integer(MIN_ANSWER_CHARS).optional(),
    cache: expected('a Cache store (with metrics()) or an Agent', (v) => hasMethods(v, 'metrics') || hasMethods(v, 'prompt', 'reflect')).optional(),
    workflows: registry('workflow factories').optional(),
    agents: registry('agents').optional(),
    limits: strict(
      { maxDepth: integer(0).optional(), maxSpawnsPerRun: integer(0).optional() },
      'an object like { maxDepth: 3, maxSpawnsPerRun: 10 }',
    ).optional(),
  },
  'an options object',
);

/** `introspectionTools(options)`. */
export function validateIntrospectionOptions(options: unknown): void {
  assertConfig(introspectionOptionsSchema, options, 'introspectionTools', 'options');
}
