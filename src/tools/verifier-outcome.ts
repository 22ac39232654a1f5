import type { VerifierOutcome } from '../types/trajectory.js';
import { readRunnerOutput } from './runner-output.js';
import { isRecord } from '../util/is-record.js';

const OUTCOMES: ReadonlySet<unknown> = new Set<VerifierOutcome>(['passed', 'failed', 'unknown']);
/** A string result longer than this is not tried as JSON (it is read as text). */
const JSON_CHARS = 64 * 1024;

function isVerifierOutcome(value: unknown): value is VerifierOutcome {
  return OUTCOMES.has(value);
}

/**
 * The outcome of one run of a `verify` tool: an error (`is_error`) is a failure; otherwise the
 * tool's own `verdict`, when it returns an outcome; otherwise the default reading of its result.
 * A verdict that throws or returns anything but an outcome or `undefined` gives `unknown`: a broken
 * reader must neither break the call nor invent a failure.
 */
export function decideVerifierOutcome(result: unknown, isError: boolean, verdict?: () => unknown): VerifierOutcome {
  if (isError) return 'failed';
  if (verdict !== undefined) {
    let declared: unknown;
    try {
      declared = verdict();
    } catch {
      return 'unknown';
    }
    if (isVerifierOutcome(declared)) return declared;
    if (declared !== undefined) return 'unknown';
  }
  return readVerifierResult(result);
}

/**
 * The default reading of what a verify tool returned. A structured result (an object, or a string
 * holding a JSON object) declares its outcome in `outcome` (`'passed' | 'failed' | 'unknown'`),
 * a boolean `passed`, `ok`, `success` or `failed`, or a numeric `exitCode`; fields that disagree
 * give `unknown`. With none of them, its `output`, `stdout` and `stderr` text is read like plain
 * text: for the summary lines of common runners (see `readRunnerOutput`). Never throws.
 */
export function readVerifierResult(result: unknown): VerifierOutcome {
  try {
    if (typeof result === 'string') {
      const parsed = jsonObject(result);
      return parsed === undefined ? readRunnerOutput(result).outcome : readStructured(parsed);
    }
    if (typeof result === 'object' && result !== null) return readStructured(result as Record<string, unknown>);
    return 'unknown';
  } catch {
    // A hostile result (throwing getters, a revoked proxy) says nothing certain.
    return 'unknown';
  }
}

function readStructured(result: Record<string, unknown>): VerifierOutcome {
  const declared = new Set<VerifierOutcome>();
  if (isVerifierOutcome(result['outcome'])) declared.add(result['outcome']);
  for (const key of ['passed', 'ok', 'success']) {
    const value = result[key];
    if (typeof value === 'boolean') declared.add(value ? 'passed' : 'failed');
  }
  const failed = result['failed'];
  if (typeof failed === 'boolean') declared.add(failed ? 'failed' : 'passed');
  const exitCode = result['exitCode'];
  if (typeof exitCode === 'number') declared.add(exitCode === 0 ? 'passed' : 'failed');
  if (declared.size > 1) return 'unknown';
  const [only] = declared;
  if (only !== undefined) return only;
  const text = ['output', 'stdout', 'stderr']
    .map((key) => result[key])
    .filter((value): value is string => typeof value === 'string')
    .join('\n');
  return readRunnerOutput(text).outcome;
}

function jsonObject(text: string): Record<string, unknown> | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith('{') || trimmed.length > JSON_CHARS) return undefined;
  try {
    const parsed: unknown = JSON.parse(trimmed);
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
