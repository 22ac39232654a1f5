import { describe, expect, it } from 'vitest';
import type { StepEndEvent, WorkflowEvent } from '../../src/types/events.js';
import { dispatchEvent, dispatchEventWith, type EventTable } from '../../src/types/event-table.js';

// A complete table: one entry per event type. A new event type makes this file fail to compile
// too, like every other consumer's table: that is the guarantee this test is about.
const DESCRIBE: EventTable<string> = {
  workflowStart: (event) => `workflow ${event.name}`,
  workflowEnd: 'ignore',
  childAttached: 'ignore',
  childDetached: 'ignore',
  treeUpdated: 'ignore',
  stateSnapshot: 'ignore',
  stepStart: 'ignore',
  // The handler gets the event of its own type: `attempts` is a stepEnd field.
  stepEnd: (event) => `step ${event.name} took ${event.attempts} attempts`,
  stepRetry: 'ignore',
  stepReplayed: 'ignore',
  waitStarted: (event) => `waits for ${event.name}`,
  signalReceived: 'ignore',
  signalRejected: 'ignore',
  taskStart: 'ignore',
  taskEnd: 'ignore',
  error: 'ignore',
  cancelled: 'ignore',
  observerError: 'ignore',
  agentPromptStart: 'ignore',
  agentPromptEnd: 'ignore',
  agentText: 'ignore',
  modelRequest: 'ignore',
  toolInvocation: 'ignore',
  mcpEvent: 'ignore',
  apiError: 'ignore',
  promptReplaced: 'ignore',
  trajectoryCheckpoint: 'ignore',
  contextCompacted: 'ignore',
  goalSignOff: 'ignore',
  reflectionStart: 'ignore',
  reflectionEnd: 'ignore',
  cacheHit: 'ignore',
  cacheMiss: 'ignore',
  cacheStoreError: 'ignore',
  pricingMissing: 'ignore',
  budgetWaiting: 'ignore',
  budgetWarning: 'ignore',
  budgetExceeded: 'ignore',
  budgetUsageUnreliable: 'ignore',
};

// The compile-time half: tsc (`npm run typecheck`, which includes tests) fails if either line
// below stops being an error, e.g. if EventTable ever let a consumer leave a type undecided.
const { pricingMissing: _decided, ...missingOne } = DESCRIBE;
// @ts-expect-error pricingMissing has no entry, so this is not a table.
const incomplete: EventTable<string> = missingOne;
// @ts-expect-error a stepStart handler gets a stepStart event, which has no `attempts`.
const mistyped: EventTable<string> = { ...DESCRIBE, stepStart: (event) => String(event.attempts) };

const base = { id: 1, nodeId: 'n1', workflowId: 'w1', timestamp: 0 } as const;
const stepEnd: StepEndEvent = { ...base, type: 'stepEnd', name: 'fetch', status: 'completed', attempts: 2 };

describe('EventTable and dispatchEvent', () => {
  it('calls the handler of the event type, with that event', () => {
    expect(dispatchEvent(DESCRIBE, stepEnd)).toBe('step fetch took 2 attempts');
    expect(dispatchEvent(DESCRIBE, { ...base, type: 'workflowStart', name: 'release' })).toBe('workflow release');
    // Three types share one event shape; each is dispatched by its own type.
    expect(dispatchEvent(DESCRIBE, { ...base, type: 'waitStarted', name: 'approval' })).toBe('waits for approval');
  });

  it("returns the ignored value for a type the table says 'ignore' to (undefined by default)", () => {
    const ignoredStart: WorkflowEvent = { ...base, type: 'stepStart', name: 'fetch' };
    expect(dispatchEvent(DESCRIBE, ignoredStart, 'skipped')).toBe('skipped');
    expect(dispatchEvent(DESCRIBE, ignoredStart)).toBeUndefined();
    expect(dispatchEvent(DESCRIBE, { ...base, type: 'signalReceived', name: 'approval' }, null)).toBeNull();
  });

  it('ignores a type the table does not own (an export from another version), even one Object.prototype has', () => {
    for (const type of ['aFutureEvent', 'toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const unknown = { ...base, type } as unknown as WorkflowEvent;
      expect(dispatchEvent(DESCRIBE, unknown, 'skipped')).toBe('skipped');
    }
  });

  it('dispatchEventWith passes the context and the extra value along', () => {
    const seen: string[] = [];
    // Every other type ignored, without writing each out again.
    const ignoreAll = Object.fromEntries(Object.keys(DESCRIBE).map((type) => [type, 'ignore'])) as { readonly [K in keyof typeof DESCRIBE]: 'ignore' };
    const table: EventTable<number, string[], string> = {
      ...ignoreAll,
      stepEnd: (event, into, where) => into.push(`${where}: ${event.name}`),
    };
    expect(dispatchEventWith(table, stepEnd, seen, 'node n1')).toBe(1);
    expect(dispatchEventWith(table, { ...base, type: 'stepStart', name: 'fetch' }, seen, 'node n1')).toBeUndefined();
    expect(seen).toEqual(['node n1: fetch']);
  });
});
