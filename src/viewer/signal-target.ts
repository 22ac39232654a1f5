import type { RunStore } from '../durable/store/run-store.js';

/**
 * Where the page's signal goes: the stored run the viewer shows. With `allowSignals` on, a shown
 * run that has one gets a form for its wait (decision 0081).
 */
export interface ViewerSignalTarget {
  readonly store: RunStore;
  readonly runId: string;
}
