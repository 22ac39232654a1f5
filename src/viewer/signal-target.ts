import type { RunStore } from '../durable/store/run-store.js';

/**
 * Where the page's signal goes: the stored run the viewer shows. With `allowSignals` on, a shown
 * run that has one gets a form for its wait (decision 0081).
 */
export interface ViewerSignalTarget {
  readonly store: RunStore;
  readonly runId: string;
  /**
   * How the command line names this store, for the commands the page shows (a fork at the selected
   * step): `--store ./runs`, or `--pg <url>` with no password in it. Default `--store <dir>`.
   */
  readonly storeFlag?: string;
}
