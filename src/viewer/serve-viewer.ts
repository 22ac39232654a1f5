import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LoadedNode } from '../debugger/loaded-node.js';
import { parseRunExport } from '../debugger/run-export.js';
import { compareRuns, type CompareOptions } from '../durable/replay/compare-runs.js';
import type { Recording } from '../durable/replay/recording.js';
import type { RunComparison } from '../durable/replay/run-comparison.js';
import { UsageError } from '../errors/groundswell-error.js';
import type { WorkflowNode } from '../types/node.js';
import type { Unsubscribe, WorkflowObserver } from '../types/observer.js';
import { dispatchEvent } from '../types/event-table.js';
import type { RunExport } from '../types/serialized.js';
import { describeValue } from '../util/describe.js';
import type { ComparisonView } from './compare-messages.js';
import { comparisonView } from './comparison-view.js';
import { isLoopback } from './loopback-host.js';
import type { ViewerSignalTarget } from './signal-target.js';
import { rowsMessage } from './rows-message.js';
import { SseClients } from './sse-clients.js';
import type { NodesMessage, SignalStatus, SnapshotMessage, StoredRun, ViewerMode } from './stream-messages.js';
import { handleViewerRequest, type ViewerState } from './viewer-handler.js';
import { ViewerError } from './viewer-error.js';
import { ViewerModel } from './viewer-model.js';
import type { ViewerWait } from './viewer-wait.js';
import { ROOT_WAIT_EVENTS } from './wait-events.js';

export interface ViewerOptions {
  /** Default 0: a free port the system picks (read it from `url`). */
  readonly port?: number;
  /** Default `127.0.0.1`. Any other address shows the run to whoever can reach it. */
  readonly host?: string;
  /** How often changes are sent to open pages, in milliseconds (default 100). */
  readonly batchMs?: number;
  /**
   * Lets the page answer a shown run's wait for a signal (default false; decision 0081): a form
   * built from the wait's schema, sent with a per-server token. Needs a loopback `host`, and a
   * run shown with `signalTo`.
   */
  readonly allowSignals?: boolean;
}

/** What `attach` needs of a workflow: any `Workflow` fits. */
export interface ViewableWorkflow {
  readonly root: { readonly node: WorkflowNode; addObserver(observer: WorkflowObserver): Unsubscribe };
}

export interface Viewer {
  /** `http://127.0.0.1:<port>/`: open it in a browser. */
  readonly url: string;
  /** Shows `workflow`'s whole tree (from its root) as it runs; returns a function that stops following it. */
  attach(workflow: ViewableWorkflow): Unsubscribe;
  /**
   * Shows a stored run (an export, as object or JSON text); call again with a newer export to
   * update it. `live` marks it as still running; `waitingFor` (a suspended run record's) shows
   * what the run waits for; `signalTo` (the run's store and id) is where the page's answer to
   * that wait goes, when the viewer allows signals, and the run a selected step's fork command names.
   */
  show(run: RunExport | string, options?: { readonly live?: boolean; readonly waitingFor?: ViewerWait; readonly signalTo?: ViewerSignalTarget }): void;
  /**
   * Shows two runs side by side: one row per matched node path, each highlighted by its change,
   * the totals and summary on top, and a selected row's answer diff and deltas. Static: call
   * again (or `show`, `attach`) to show something else.
   */
  showComparison(comparison: RunComparison): void;
  /** Compares two recordings (objects or file paths) with `compareRuns`, shows the result and returns it. */
  compare(a: Recording | string, b: Recording | string, options?: CompareOptions): Promise<RunComparison>;
  /** Ends every open page's stream and stops the server. */
  close(): Promise<void>;
}

/** Touched ids per batch beyond this are sent as "anything may have changed". */
const MAX_TOUCHED = 500;

/**
 * Serves the viewer page for a run on loopback (node:http, nothing else): attach a live workflow,
 * or show a stored run.
 */
export async function serveViewer(options: ViewerOptions = {}): Promise<Viewer> {
  const { port = 0, host = '127.0.0.1', batchMs = 100, allowSignals = false } = checkOptions(options);
  const model = new ViewerModel();
  const clients = new SseClients();
  let mode: ViewerMode = 'empty';
  let dirty = true;
  let touched = new Set<string>();
  let touchedAll = false;
  let wait: ViewerWait | null = null;
  let waitChanged = false;
  let signalTo: ViewerSignalTarget | null = null;
  let answered: string | null = null;
  let comparison: ComparisonView | null = null;
  const setWait = (next: ViewerWait | null): void => {
    // The same wait shown again (a newer export) keeps its answer; another wait has none yet.
    if (next?.name !== wait?.name || next?.since !== wait?.since) answered = null;
    wait = next;
    waitChanged = true;
    dirty = true;
  };
  const signals = (): SignalStatus => ({ open: allowSignals && signalTo !== null, answered });
  // A run shown with its store can be forked: the page names it in the command it shows.
  const stored = (): StoredRun | null => (signalTo === null ? null : { runId: signalTo.runId, storeFlag: signalTo.storeFlag ?? '--store <dir>' });
  let listeningPort = 0;
  const detachers = new Set<Unsubscribe>();

  const flush = (): void => {
    const changes = model.refresh();
    const touchedIds = touchedAll ? null : [...touched];
    dirty = false;
    touched = new Set();
    touchedAll = false;
    const waitSent = waitChanged;
    waitChanged = false;
    if (changes.upserted.length === 0 && changes.removed !== 'all' && changes.removed.length === 0 && touchedIds?.length === 0 && !waitSent) return;
    const { upserted, ...rest } = changes;
    const fields = { ...rest, mode, wait, signals: signals(), stored: stored(), touched: touchedIds } satisfies Omit<NodesMessage, 'upserted'>;
    clients.send(rowsMessage('nodes', fields, 'upserted' satisfies keyof NodesMessage, upserted));
  };
  const state: ViewerState = {
    model,
    clients,
    boundHost: host,
    nonce: randomBytes(16).toString('base64'),
    signals: allowSignals
      ? {
          token: randomBytes(32).toString('base64url'),
          port: () => listeningPort,
          target: () => signalTo,
          answered: (message) => {
            answered = message;
            waitChanged = true;
            dirty = true;
          },
        }
      : null,
    snapshotMessage: () => {
      if (dirty) flush();
      const { rows, ...rest } = model.snapshot();
      const fields = { ...rest, mode, wait, signals: signals(), stored: stored(), comparison } satisfies Omit<SnapshotMessage, 'rows'>;
      return rowsMessage('snapshot', fields, 'rows' satisfies keyof SnapshotMessage, rows);
    },
    flushIfDirty: () => {
      if (dirty) flush();
    },
  };
  const tick = (): void => {
    if (dirty && clients.size > 0) flush();
  };
  let timer = setInterval(tick, batchMs).unref();
  // A run attached while a page is open shows at once, and its batches count from then: a run
  // shorter than one interval goes out whole at its end, not as a batch at whatever point of it
  // the interval fell (a walk of the tree so far, then one of all of it).
  const batchFromNow = (): void => {
    if (clients.size === 0) return;
    flush();
    clearInterval(timer);
    timer = setInterval(tick, batchMs).unref();
  };
  // With no page open nothing is tracked: the next page starts from one walk of the tree.
  const touch = (id: string, node?: WorkflowNode): void => {
    dirty = true;
    if (clients.size === 0) model.invalidate();
    else if (node !== undefined) model.touch(node);
    else model.touchId(id);
    if (touchedAll) return;
    touched.add(id);
    if (touched.size > MAX_TOUCHED) touchedAll = true;
  };

  // Open pages switch between one run and a comparison by a fresh snapshot: batches carry neither.
  const resendSnapshot = (): void => {
    if (clients.size > 0) clients.send(state.snapshotMessage());
  };
  const leaveComparison = (): void => {
    if (comparison === null) return;
    comparison = null;
    resendSnapshot();
  };

  const showComparison = (shown: RunComparison): void => {
    if (typeof shown !== 'object' || shown === null || !Array.isArray(shown.nodes) || typeof shown.summary !== 'string') {
      throw new UsageError(`viewer.showComparison expects what compareRuns returns, got ${describeValue(shown)}.`);
    }
    comparison = comparisonView(shown);
    model.setRoot(null);
    mode = 'compare';
    signalTo = null;
    setWait(null);
    touchedAll = true;
    resendSnapshot();
  };

  const server = createServer((req, res) => {
    try {
      handleViewerRequest(state, req, res);
    } catch {
      // A malformed request (a bad %-escape in a node id): answer it, never fall over.
      if (!res.headersSent) res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' });
      res.end('Bad request.\n');
    }
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  await listen(server, port, host).catch((error: unknown) => {
    clearInterval(timer);
    throw error;
  });
  const address = server.address() as AddressInfo;
  listeningPort = address.port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}/`;

  return {
    url,
    attach(workflow) {
      const root = workflow?.root;
      if (root === undefined || typeof root.addObserver !== 'function') {
        throw new UsageError(`viewer.attach expects a workflow, got ${describeValue(workflow)}.`);
      }
      model.setRoot(root.node);
      mode = 'live';
      // A live workflow's store is not known here: its wait is shown, not answered.
      signalTo = null;
      setWait(null);
      touchedAll = true;
      const unsubscribe = root.addObserver({
        onEvent: (event, node) => {
          // The root's wait for a signal is the banner's, as a stored run's record would show it.
          if (node?.parent === null) {
            const next = dispatchEvent(ROOT_WAIT_EVENTS, event);
            if (next !== undefined) setWait(next);
          }
          touch(event.nodeId, node);
          // The run's end goes out at once: a page should not show a finished run as running
          // for up to a batch interval (that wait was most of what a short watched run took).
          if (event.type === 'workflowEnd' && node?.parent === null && clients.size > 0) flush();
        },
        onLog: (entry) => touch(entry.nodeId),
        onStateUpdated: (node) => touch(node.id, node),
        onTreeChanged: (top) => touch(top.id, top),
      });
      const detach = (): void => {
        detachers.delete(detach);
        unsubscribe();
      };
      detachers.add(detach);
      leaveComparison();
      batchFromNow();
      return detach;
    },
    show(run, showOptions) {
      let root: LoadedNode;
      try {
        root = LoadedNode.load(parseRunExport(run).root);
      } catch (cause) {
        throw new ViewerError(`The viewer cannot show this run: ${(cause as Error).message}`, { cause });
      }
      model.setRoot(root);
      mode = showOptions?.live === true ? 'live' : 'stored';
      signalTo = checkTarget(showOptions?.signalTo);
      setWait(showOptions?.waitingFor ?? null);
      touchedAll = true;
      leaveComparison();
    },
    showComparison,
    async compare(a, b, compareOptions) {
      const result = await compareRuns(a, b, compareOptions);
      showComparison(result);
      return result;
    },
    async close() {
      clearInterval(timer);
      for (const detach of [...detachers]) detach();
      clients.closeAll();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const fail = (cause: Error): void => {
      reject(new ViewerError(`The viewer cannot listen on ${host}:${port}: ${cause.message}`, { cause }));
    };
    server.once('error', fail);
    server.listen(port, host, () => {
      server.off('error', fail);
      resolve();
    });
  });
}

function checkOptions(options: ViewerOptions): ViewerOptions {
  if (typeof options !== 'object' || options === null) throw new UsageError(`serveViewer options must be an object, got ${describeValue(options)}.`);
  const known = new Set(['port', 'host', 'batchMs', 'allowSignals']);
  for (const key of Object.keys(options)) if (!known.has(key)) throw new UsageError(`serveViewer options has an unknown key "${key}".`);
  const { port, host, batchMs, allowSignals } = options;
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65535)) {
    throw new UsageError(`serveViewer options.port must be an integer from 0 to 65535, got ${describeValue(port)}.`);
  }
  if (host !== undefined && (typeof host !== 'string' || host === '')) throw new UsageError(`serveViewer options.host must be a non-empty string, got ${describeValue(host)}.`);
  if (batchMs !== undefined && (!Number.isInteger(batchMs) || batchMs < 10 || batchMs > 60_000)) {
    throw new UsageError(`serveViewer options.batchMs must be an integer from 10 to 60000, got ${describeValue(batchMs)}.`);
  }
  if (allowSignals !== undefined && typeof allowSignals !== 'boolean') throw new UsageError(`serveViewer options.allowSignals must be a boolean, got ${describeValue(allowSignals)}.`);
  // Sending is an action on the run: only this machine may take it.
  if (allowSignals === true && host !== undefined && !isLoopback(host)) {
    throw new UsageError(`serveViewer options.allowSignals needs a loopback host (127.0.0.1, ::1 or localhost), got "${host}".`);
  }
  return options;
}

function checkTarget(target: ViewerSignalTarget | undefined): ViewerSignalTarget | null {
  if (target === undefined) return null;
  if (typeof target !== 'object' || target === null || typeof target.runId !== 'string' || typeof target.store?.putSignal !== 'function') {
    throw new UsageError(`viewer.show options.signalTo must be { store, runId }, got ${describeValue(target)}.`);
  }
  if (target.storeFlag !== undefined && typeof target.storeFlag !== 'string') {
    throw new UsageError(`viewer.show options.signalTo.storeFlag must be a string, got ${describeValue(target.storeFlag)}.`);
  }
  return target;
}
