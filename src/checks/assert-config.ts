import { UsageError } from '../errors/groundswell-error.js';
import type { Check } from './check.js';
import { configProblem } from './config-problem.js';

/**
 * Checks `value` against `check` and throws one UsageError for what is wrong, each problem named
 * by its path and expectation: `Agent "writer": config.temperature must be a number between 0 and
 * 1, got "hot".` `label` says whose input it is (a function: built only on failure, as some checks
 * run per call), `root` what the value is called (config, options).
 */
export function assertConfig(check: Check, value: unknown, label: string | (() => string), root = 'config'): void {
  const problem = configProblem(check, value, root);
  if (problem !== undefined) throw new UsageError(`${typeof label === 'string' ? label : label()}: ${problem.text}`, { cause: problem.cause });
}
