import { assertConfig } from '../../checks/assert-config.js';
import type { Check } from '../../checks/check.js';
import { func } from '../../checks/fields.js';
import { memberLabel } from '../../checks/label.js';
import { open } from '../../checks/object.js';
import type { WorkflowObserver } from '../../types/observer.js';

// Typed by the interface, so a method added to WorkflowObserver must be checked here too.
const methods: { readonly [K in keyof Required<WorkflowObserver>]: Check } = {
  onLog: func.optional(),
  onEvent: func.optional(),
  onStateUpdated: func.optional(),
  onTreeChanged: func.optional(),
};

// Other keys are the observer's own (a class with state of its own), so they are not refused.
const observerSchema = open(methods, `an object with any of ${Object.keys(methods).join(', ')} as functions`);

/**
 * `workflow.addObserver(observer)`: a method that is not a function would otherwise be called on
 * every event and fail each time, reported only as `observerError` events.
 */
export function validateObserver(observer: unknown, workflowName: string): void {
  assertConfig(observerSchema, observer, () => `${memberLabel('Workflow', workflowName)}.addObserver`, 'observer');
}
