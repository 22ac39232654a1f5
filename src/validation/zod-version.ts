import { z } from 'zod';
import { UsageError } from '../errors/groundswell-error.js';

let checked = false;

/**
 * groundswell builds on zod 4 (`z.toJSONSchema`, the `_zod` internals). A project that resolves
 * `zod` to version 3 would otherwise fail deep inside a first agent call with
 * "Cannot read properties of undefined"; this says what is wrong at the first schema handed over.
 */
export function assertZod4(): void {
  if (checked) return;
  if (typeof (z as { toJSONSchema?: unknown }).toJSONSchema !== 'function') {
    throw new UsageError(
      'groundswell needs zod 4 (peer dependency "zod": "^4"), but the installed zod has no z.toJSONSchema: ' +
        'it looks like zod 3. Install zod@^4 in your project.',
    );
  }
  checked = true;
}
