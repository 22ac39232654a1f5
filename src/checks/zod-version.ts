import { UsageError } from '../errors/groundswell-error.js';
import { loadedZod, loadZod, type ZodModule } from '../util/load-zod.js';

let checked = false;

/**
 * groundswell builds on zod 4 (`z.toJSONSchema`, the `_zod` internals). A project that resolves
 * `zod` to version 3 would otherwise fail deep inside a first agent call with
 * "Cannot read properties of undefined"; this says what is wrong. zod is not loaded for it: the
 * check runs on the module once it has loaded (before the first schema is converted), and a zod 3
 * schema handed over is refused at creation by its missing `_zod` (fields.ts `zodSchema`).
 */
export function assertZod4(zod: ZodModule | undefined = loadedZod()): void {
  if (checked || zod === undefined) return;
  if (typeof (zod as { toJSONSchema?: unknown }).toJSONSchema !== 'function') {
    throw new UsageError(
      'groundswell needs zod 4 (peer dependency "zod": "^4"), but the installed zod has no z.toJSONSchema: ' +
        'it looks like zod 3. Install zod@^4 in your project.',
    );
  }
  checked = true;
}

/** Whether zod has loaded and passed the version check. */
export function zodReady(): boolean {
  return checked;
}

/** zod for an agent call: loaded on first use, and checked to be zod 4 before any schema is converted. */
export async function loadZodChecked(): Promise<ZodModule> {
  const zod = await loadZod();
  assertZod4(zod);
  return zod;
}
