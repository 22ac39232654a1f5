import { assertConfig } from '../checks/assert-config.js';
import { flag, strict } from '../checks/config-fields.js';

const observedStateOptionsSchema = strict({ hidden: flag.optional(), redact: flag.optional() }, 'an object like { redact: true }');

/** `@ObservedState(options)`: a typo such as `redacted: true` would otherwise leak the field. */
export function validateObservedStateOptions(options: unknown): void {
  assertConfig(observedStateOptionsSchema, options, '@ObservedState', 'options');
}
