import type { WorkflowEvent } from './events.js';

/** Every event type there is. */
export type WorkflowEventType = WorkflowEvent['type'];

/** The event (or events sharing one shape) that can carry type `K`. */
export type EventOfType<K extends WorkflowEventType> = WorkflowEvent extends infer E
  ? E extends WorkflowEvent
    ? K extends E['type']
      ? E
      : never
    : never
  : never;

/**
 * What one consumer (a renderer, an exporter, an observer) does with each event type: a handler,
 * or `'ignore'` said out loud. Typed over every event type, so adding an event does not compile
 * until each consumer has decided what to do with it.
 */
export type EventTable<R> = {
  readonly [K in WorkflowEventType]: ((event: EventOfType<K>) => R) | 'ignore';
};

/** Runs the table's handler for `event`; `ignored` when the table says `'ignore'`. */
export function dispatchEvent<R, I = undefined>(table: EventTable<R>, event: WorkflowEvent, ignored?: I): R | I {
  const handler = table[event.type] as ((event: WorkflowEvent) => R) | 'ignore';
  return handler === 'ignore' ? (ignored as I) : handler(event);
}
