import type { EventTable } from '../types/event-table.js';
import type { ViewerWait } from './viewer-wait.js';

/**
 * What each of a live root's events does to the page's wait banner: a new wait (`waitStarted`),
 * none (`signalReceived`: null), or nothing (`'ignore'`). Every event type is listed, so a new one
 * does not compile until the viewer decides.
 */
export const ROOT_WAIT_EVENTS: EventTable<ViewerWait | null> = {
  workflowStart: 'ignore',
  workflowEnd: 'ignore',
  childAttached: 'ignore',
  childDetached: 'ignore',
  treeUpdated: 'ignore',
  stateSnapshot: 'ignore',
  stepStart: 'ignore',
  stepEnd: 'ignore',
  stepReplayed: 'ignore',
  waitStarted: (event) => ({ name: event.name, since: event.timestamp, ...(event.timeoutAt !== undefined ? { timeoutAt: event.timeoutAt } : {}) }),
  signalReceived: () => null,
  // A rejected signal leaves the run waiting, as the banner says.
  signalRejected: 'ignore',
  stepRetry: 'ignore',
  taskStart: 'ignore',
  taskEnd: 'ignore',
  error: 'ignore',
  cancelled: 'ignore',
  observerError: 'ignore',
  agentPromptStart: 'ignore',
  agentPromptEnd: 'ignore',
  toolInvocation: 'ignore',
  mcpEvent: 'ignore',
  agentText: 'ignore',
  modelRequest: 'ignore',
  apiError: 'ignore',
  cacheHit: 'ignore',
  cacheMiss: 'ignore',
  cacheStoreError: 'ignore',
  reflectionStart: 'ignore',
  reflectionEnd: 'ignore',
  promptReplaced: 'ignore',
  trajectoryCheckpoint: 'ignore',
  contextCompacted: 'ignore',
  goalSignOff: 'ignore',
  pricingMissing: 'ignore',
  budgetWaiting: 'ignore',
  budgetWarning: 'ignore',
  budgetExceeded: 'ignore',
  budgetUsageUnreliable: 'ignore',
};
