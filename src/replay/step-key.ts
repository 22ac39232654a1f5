import { createHash } from 'node:crypto';
import type { StepIdentity } from '../core/run-journal.js';

/**
 * A fingerprint of what a step runs: its code and, for a decorated method, its arguments. A resume
 * whose step has another fingerprint than the stored one runs different code or input there.
 */
export function stepFingerprint(identity: StepIdentity): string {
  const hash = createHash('sha256').update(String(identity.source));
  if (identity.args !== undefined && identity.args.length > 0) hash.update('\0').update(argsText(identity.args));
  return hash.digest('hex').slice(0, 32);
}

/** A call's fingerprint: what was asked of which model. */
export function callFingerprint(model: string, system: string | undefined, user: string): string {
  return createHash('sha256').update(JSON.stringify([model, system ?? null, user])).digest('hex').slice(0, 32);
}

// Arguments that JSON cannot show (functions, cycles) count by their kind only.
function argsText(args: readonly unknown[]): string {
  try {
    return JSON.stringify(args, (_key, value: unknown) => (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint' ? `<${typeof value}>` : value)) ?? '';
  } catch {
    return args.map((arg) => typeof arg).join(',');
  }
}
