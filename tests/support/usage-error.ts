import { expect } from 'vitest';
import { UsageError } from 'groundswell';

/** The UsageError `action` throws; fails the test when it throws something else or nothing. */
export function usageErrorFrom(action: () => unknown): UsageError {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  throw new Error('expected a UsageError, and nothing was thrown');
}
