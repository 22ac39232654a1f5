import type { WorkflowEvent, WorkflowEventType } from './events.js';

/** The event (or events sharing one shape) that can carry type `K`. */
type EventOfType<K extends WorkflowEventType> = WorkflowEvent extends infer E
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
 *
 * `C` and `D` are what the consumer passes along with each event (its state, the node the event
 * is about), so a table can be one module-level constant: no closure is made per event.
 */
export type EventTable<R, C = void, D = void> = {
  readonly [K in WorkflowEventType]: ((event: EventOfType<K>, context: C, extra: D) => R) | 'ignore';
};

type AnyHandler = (event: WorkflowEvent, context: unknown, extra: unknown) => unknown;

/**
 * The table's handler for `type`, or undefined. Own entries only: a loaded run export may hold an
 * event type this build does not know (or one named `toString`), which is skipped, not called.
 */
function handlerOf(table: object, type: string): AnyHandler | undefined {
  const handler = (table as Record<string, AnyHandler | 'ignore' | undefined>)[type];
  // `'ignore'` (the common case) is answered before the own-entry check, which only functions need.
  return typeof handler === 'function' && Object.hasOwn(table, type) ? handler : undefined;
}

/** Runs the table's handler for `event`; `ignored` when the table says `'ignore'` (or does not know the type). */
export function dispatchEvent<R, I = undefined>(table: EventTable<R>, event: WorkflowEvent, ignored?: I): R | I {
  const handler = handlerOf(table, event.type);
  return handler === undefined ? (ignored as I) : (handler(event, undefined, undefined) as R);
}

/** `dispatchEvent` for a table whose handlers take what the consumer passes along; undefined when ignored. */
export function dispatchEventWith<R, C, D = void>(table: EventTable<R, C, D>, event: WorkflowEvent, context: C, extra: D): R | undefined {
  const handler = handlerOf(table, event.type);
  return handler === undefined ? undefined : (handler(event, context, extra) as R);
}
