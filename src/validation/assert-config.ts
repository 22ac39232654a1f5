import type { z } from 'zod';
import { UsageError } from '../errors/groundswell-error.js';
import { errorMessage, readProperty } from '../util/describe.js';
import { received, receivedKind } from './received.js';

const MAX_REPORTED = 3;

/**
 * Checks `value` against `schema` and throws one UsageError for what is wrong, each problem named
 * by its path and expectation: `Agent "writer": config.temperature must be a number between 0 and
 * 1, got "hot".` `label` says whose input it is (a function: built only on failure, as some checks
 * run per call), `root` what the value is called (config, options).
 */
export function assertConfig(schema: z.ZodType, value: unknown, label: string | (() => string), root = 'config'): void {
  let result: ReturnType<z.ZodType['safeParse']>;
  try {
    result = schema.safeParse(value);
  } catch (cause) {
    // A getter or proxy trap that throws: the input cannot be checked, so it is refused.
    throw new UsageError(`${labelText(label)}: ${root} could not be read (${errorMessage(cause)}).`, { cause });
  }
  if (result.success) return;
  const issues = result.error.issues;
  const sentences = issues.slice(0, MAX_REPORTED).map((issue) => sentence(issue, value, root));
  const more = issues.length > MAX_REPORTED ? ` (${issues.length - MAX_REPORTED} more problems not shown.)` : '';
  throw new UsageError(`${labelText(label)}: ${sentences.join(' ')}${more}`, { cause: result.error });
}

function labelText(label: string | (() => string)): string {
  return typeof label === 'string' ? label : label();
}

function sentence(issue: z.core.$ZodIssue, value: unknown, root: string): string {
  const where = root + issue.path.map(segment).join('');
  if (issue.code === 'unrecognized_keys') return `${where} ${issue.message}.`;
  const got = valueAt(value, issue.path);
  if (got === undefined && issue.path.length > 0) return `${where} is required: ${issue.message}.`;
  // Env entries are secrets (tokens, keys): say what kind of value it was, never the value.
  const shown = issue.path.includes('env') ? receivedKind(got) : received(got);
  return `${where} must be ${issue.message}, got ${shown}.`;
}

function segment(key: PropertyKey): string {
  if (typeof key === 'number') return `[${key}]`;
  if (typeof key === 'string' && /^[A-Za-z_$][\w$]*$/.test(key)) return `.${key}`;
  return `[${received(typeof key === 'symbol' ? key.toString() : key)}]`;
}

function valueAt(value: unknown, path: readonly PropertyKey[]): unknown {
  let current = value;
  for (const key of path) {
    if ((typeof current !== 'object' && typeof current !== 'function') || current === null) return undefined;
    current = readProperty(current, key);
  }
  return current;
}
