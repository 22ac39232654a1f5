import type { LogEntry, Workflow, WorkflowEvent, WorkflowEventType, WorkflowNode, WorkflowObserver } from 'groundswell';

export type EventOf<K extends WorkflowEventType> = Extract<WorkflowEvent, { type: K }>;

/** The events of one type, narrowed to that type. */
export function eventsOfType<K extends WorkflowEventType>(events: readonly WorkflowEvent[], type: K): EventOf<K>[] {
  return events.filter((event): event is EventOf<K> => event.type === type);
}

export interface Recording {
  events: WorkflowEvent[];
  logs: LogEntry[];
  states: WorkflowNode[];
  /** One line per delivery, in delivery order: `event:type:name`, `log:message`, `state:name`. */
  sequence: string[];
  observer: WorkflowObserver;
  unsubscribe(): void;
}

export function eventLabel(e: WorkflowEvent): string {
  return 'name' in e ? `${e.type}:${e.name}` : e.type;
}

/** Adds an observer to `root` that records everything it is told (events of the whole subtree included). */
export function record(root: Workflow): Recording {
  const rec: Omit<Recording, 'unsubscribe' | 'observer'> = { events: [], logs: [], states: [], sequence: [] };
  const observer: WorkflowObserver = {
    onEvent: (e) => {
      rec.events.push(e);
      rec.sequence.push(`event:${eventLabel(e)}`);
    },
    onLog: (l) => {
      rec.logs.push(l);
      rec.sequence.push(`log:${l.message}`);
    },
    onStateUpdated: (n) => {
      rec.states.push(n);
      rec.sequence.push(`state:${n.name}`);
    },
  };
  const unsubscribe = root.addObserver(observer);
  return { ...rec, observer, unsubscribe };
}
