import type { ComparisonView } from './compare-messages.js';
import type { WireRow } from './wire-row.js';
import type { ViewerWait } from './viewer-wait.js';

/**
 * The `/api/events` messages, shared by the server that sends them and the page that reads them,
 * so a change on either side is a type error on the other. Types only: the page's bundle
 * imports nothing from the server.
 */

/** How the page labels the run; `compare` shows two runs side by side instead of a tree. */
export type ViewerMode = 'live' | 'stored' | 'empty' | 'compare';

/** The whole tree as rows, parents before children and siblings in order (`fromWire` reads a row). */
export interface TreeSnapshot {
  readonly rootId: string | null;
  /** What the rows' start times count from (epoch milliseconds). */
  readonly timeBase: number;
  readonly rows: WireRow[];
}

/** What changed in the tree since the previous refresh. */
export interface TreeChanges {
  readonly rootId: string | null;
  /** What the rows' start times count from (epoch milliseconds). */
  readonly timeBase: number;
  /** New or changed rows, parents before children. */
  readonly upserted: WireRow[];
  /** Rows gone from the tree (pruned by retention, or a new root). */
  /** 'all': the rows before were of another run (the upserted rows are the whole tree). */
  readonly removed: string[] | 'all';
}

/** Whether the page may answer the shown wait, and what the server said once one was answered (decision 0081). */
export interface SignalStatus {
  /** The viewer was started with `allowSignals` and the shown run has a store to send to. */
  readonly open: boolean;
  /** The answer to the signal a page sent for this wait; null until one is stored. */
  readonly answered: string | null;
}

/**
 * The stored run shown (a run shown with `signalTo`), for the commands the page offers, such as a
 * fork at the selected step; null for a live workflow or an export file, which have no store.
 */
export interface StoredRun {
  readonly runId: string;
  /** How a command names the run's store, ready to paste: `--store ./runs`, `--pg <url>`. */
  readonly storeFlag: string;
}

/** What a page gets first: the tree as of now. */
export interface SnapshotMessage extends TreeSnapshot {
  readonly mode: ViewerMode;
  readonly wait: ViewerWait | null;
  readonly signals: SignalStatus;
  readonly stored: StoredRun | null;
  /** Two runs side by side (`viewer.showComparison`); null when one run is shown. */
  readonly comparison: ComparisonView | null;
}

/** A batch: the rows that changed, and which nodes had news (null: any may have). */
export interface NodesMessage extends TreeChanges {
  readonly mode: ViewerMode;
  readonly wait: ViewerWait | null;
  readonly signals: SignalStatus;
  readonly stored: StoredRun | null;
  readonly touched: readonly string[] | null;
}
