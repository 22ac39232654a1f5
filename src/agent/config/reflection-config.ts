import { UsageError } from '../../errors/groundswell-error.js';
import { describeValue } from '../../util/describe.js';

/** `enableReflection: true` or these options (on a prompt, an agent, a call, or a workflow). */
export interface ReflectionOptions {
  /** Attempts in all, the first included (default 2: one reflection, one retry). */
  maxAttempts?: number;
}

export type ReflectionSetting = boolean | ReflectionOptions;

export const DEFAULT_REFLECTION_ATTEMPTS = 2;

/** Where a reflection pass was configured; the tree shows it so escalation is visible. */
export type ReflectionLevel = 'prompt' | 'agent' | 'workflow';

/** The attempt budget of a setting, or 0 when reflection is off. */
export function reflectionAttempts(setting: ReflectionSetting | undefined, where: string): number {
  if (setting === undefined || setting === false) return 0;
  if (setting === true) return DEFAULT_REFLECTION_ATTEMPTS;
  if (typeof setting !== 'object' || setting === null) {
    throw new UsageError(`enableReflection of ${where} must be a boolean or { maxAttempts }, got ${describeValue(setting)}.`);
  }
  const attempts = setting.maxAttempts ?? DEFAULT_REFLECTION_ATTEMPTS;
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new UsageError(`enableReflection.maxAttempts of ${where} must be an integer >= 1, got ${describeValue(attempts)}.`);
  }
  return attempts;
}
