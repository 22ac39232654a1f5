import { createHash } from 'node:crypto';
import { modelKeyOf } from '../../agent/model/model-key.js';
import type { z } from 'zod';
import type { PromptCall } from '../../agent/prompt-call.js';
import { schemaHash } from '../../cache/schema-hash.js';
import type { StepIdentity } from '../../core/run-journal.js';

/**
 * A fingerprint of what a step runs: its code and, for a decorated method, its arguments. A resume
 * whose step has another fingerprint than the stored one runs different code or input there.
 */
export function stepFingerprint(identity: StepIdentity): string {
  const hash = createHash('sha256').update(String(identity.source));
  if (identity.args !== undefined && identity.args.length > 0) hash.update('\0').update(argsText(identity.args));
  return hash.digest('hex').slice(0, 32);
}

/**
 * A call's fingerprint: what was asked of which model, and the answer's schema (the hash the
 * prompt cache uses), so a changed schema is a mismatch even when the stored answer still parses.
 */
export function callFingerprint<T>(call: PromptCall<T>): string {
  const { system, userContent } = call.plan;
  return createHash('sha256')
    .update(JSON.stringify([modelKeyOf(call), system ?? null, userContent, answerSchemaHash(call.prompt.responseFormat)]))
    .digest('hex')
    .slice(0, 32);
}

function answerSchemaHash(schema: unknown): string {
  try {
    return schemaHash(schema as z.core.$ZodType);
  } catch {
    // A schema too deep to hash: its JSON form stands in (still changes when the schema does).
    return 'unhashable';
  }
}

// Arguments that JSON cannot show (functions, cycles) count by their kind only.
function argsText(args: readonly unknown[]): string {
  try {
    return JSON.stringify(args, (_key, value: unknown) => (typeof value === 'function' || typeof value === 'symbol' || typeof value === 'bigint' ? `<${typeof value}>` : value)) ?? '';
  } catch {
    return args.map((arg) => typeof arg).join(',');
  }
}
