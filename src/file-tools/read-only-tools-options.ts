import { UsageError } from '../errors/groundswell-error.js';
import { describeValue } from '../util/describe.js';

export interface ReadOnlyToolsOptions {
  /** Upper bound on any one tool result, in characters; longer results are cut with a marker. Default 20 000 (200 to 1 000 000). */
  readonly maxOutputChars?: number;
  /**
   * Wall-clock time one tool call may take, in milliseconds; a search or read that runs out stops and
   * says its results may be incomplete. Default 10 000 (100 to 600 000).
   */
  readonly timeBudgetMs?: number;
  /** Bytes one tool call may read from files. Default 64 MiB (1 024 to 1 GiB). */
  readonly byteBudget?: number;
}

export type ResolvedReadOnlyToolsOptions = Readonly<Required<ReadOnlyToolsOptions>>;
type Settable = { -readonly [K in keyof ReadOnlyToolsOptions]-?: number };

const RANGES: Readonly<Record<keyof ReadOnlyToolsOptions, { min: number; max: number; fallback: number }>> = {
  maxOutputChars: { min: 200, max: 1_000_000, fallback: 20_000 },
  timeBudgetMs: { min: 100, max: 600_000, fallback: 10_000 },
  byteBudget: { min: 1_024, max: 1024 ** 3, fallback: 64 * 1024 ** 2 },
};
const KNOWN = Object.keys(RANGES) as Array<keyof ReadOnlyToolsOptions>;

/**
 * Checks `readOnlyTools(root, options)`'s arguments and fills in defaults. An empty root would
 * quietly confine the tools to whatever the current directory happens to be, so it is an error,
 * like an unknown option (usually a typo that would otherwise be ignored) or a number out of range.
 *
 * @throws UsageError naming the field and what was expected.
 */
export function resolveReadOnlyToolsOptions(root: unknown, options: unknown): ResolvedReadOnlyToolsOptions {
  if (typeof root !== 'string' || root.trim() === '') {
    const got = typeof root === 'string' ? JSON.stringify(root) : describeValue(root);
    throw new UsageError(`readOnlyTools: root must be a non-empty string naming the project directory, got ${got}.`);
  }
  if (root.includes('\0')) throw new UsageError('readOnlyTools: root must not contain a NUL byte.');
  if (options === undefined) return defaults();
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new UsageError(`readOnlyTools: options must be an object, got ${describeValue(options)}.`);
  }
  const given = options as Record<string, unknown>;
  for (const key of Object.keys(given)) {
    if (!(KNOWN as string[]).includes(key)) {
      throw new UsageError(`readOnlyTools: unknown option ${JSON.stringify(key)}; the options are ${KNOWN.join(', ')}.`);
    }
  }
  const resolved = defaults();
  for (const key of KNOWN) {
    const value = given[key];
    if (value === undefined) continue;
    const { min, max } = RANGES[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      const got = typeof value === 'number' ? String(value) : describeValue(value);
      throw new UsageError(`readOnlyTools: options.${key} must be an integer from ${min} to ${max}, got ${got}.`);
    }
    resolved[key] = value;
  }
  return Object.freeze(resolved);
}

function defaults(): Settable {
  return { maxOutputChars: RANGES.maxOutputChars.fallback, timeBudgetMs: RANGES.timeBudgetMs.fallback, byteBudget: RANGES.byteBudget.fallback };
}
