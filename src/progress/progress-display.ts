import type { WorkflowEvent } from '../types/events.js';
import type { WorkflowNode } from '../types/node.js';
import type { WorkflowObserver } from '../types/observer.js';
import { countsLine, finishLine, fit, formatElapsed, regionLines, usageLine } from './progress-render.js';
import { rootBudgetText } from './root-budget.js';
import { ProgressState } from './progress-state.js';

/** Where the display writes: `process.stderr` by default; anything with `write` fits. */
export interface ProgressStream {
  write(text: string): unknown;
  readonly isTTY?: boolean;
  readonly columns?: number;
}

export interface ProgressDisplayOptions {
  /** Default `process.stderr`, so a program's own output on stdout stays clean. */
  stream?: ProgressStream;
  /** Redraw in place (true) or print plain lines (false). Default: `stream.isTTY`, unless `TERM=dumb`. */
  isTTY?: boolean;
  /** Time source for the elapsed time (default `performance`). */
  clock?: { now(): number };
  /** On a TTY, the region is redrawn at most once per `intervalMs` (default 100: 10 per second). */
  intervalMs?: number;
  /** Not on a TTY, a summary line at most once per `summaryMs` while the run goes on (default 10 000). */
  summaryMs?: number;
  /** How many running steps, tasks and agent calls the display names (default 3). */
  maxRunning?: number;
  /**
   * Calls `tick` every `ms` until the returned function is called (default: an unref'd
   * `setInterval`, which never keeps a process alive). Inject one to drive the display in tests.
   */
  timer?: (tick: () => void, ms: number) => () => void;
}

/** An observer to add to a root workflow (`workflow.addObserver(progress)`), and `stop()`. */
export interface ProgressDisplay extends WorkflowObserver {
  onEvent(event: WorkflowEvent): void;
  /** Draws the last state and stops: no more timers or writes. Called by itself when the root finishes. */
  stop(): void;
}

const CURSOR_UP = (n: number): string => `\x1b[${n}A\r`;
const CLEAR_LINE = '\x1b[2K';
const CLEAR_BELOW = '\x1b[0J';

function intervalTimer(tick: () => void, ms: number): () => void {
  const handle = setInterval(tick, ms);
  handle.unref();
  return () => clearInterval(handle);
}

/**
 * A live progress display for long runs. On a TTY it keeps one region of three lines at the
 * bottom of the terminal (root status and elapsed time, tokens and cost; running/done/failed
 * nodes by kind; the oldest running steps and agent calls), redrawn in place at most 10 times a
 * second and left as a final summary when the root finishes. Elsewhere (a pipe, CI, a log file)
 * it prints plain lines without escape codes: one per finished workflow and per failure, a
 * summary line every `summaryMs`, and a last one at the end.
 *
 * Names come from the run's events, which are masked with the run's secrets before any observer
 * sees them. Memory is bounded by what runs at once, not by how many nodes the run had.
 */
export function progressDisplay(options: ProgressDisplayOptions = {}): ProgressDisplay {
  const stream: ProgressStream = options.stream ?? process.stderr;
  const tty = options.isTTY ?? (stream.isTTY === true && process.env.TERM !== 'dumb');
  const clock = options.clock ?? performance;
  const intervalMs = options.intervalMs ?? 100;
  const summaryMs = options.summaryMs ?? 10_000;
  const maxRunning = options.maxRunning ?? 3;
  const timer = options.timer ?? intervalTimer;

  let state = new ProgressState();
  let rootId: string | undefined;
  // The root's node, whose budget the usage line shows as it stands at each drawing.
  let rootNode: object | undefined;
  let startedAt = 0;
  let cancelTimer: (() => void) | undefined;
  let drawnLines = 0;
  let drawnVersion = -1;
  let drawnText = '';
  let stopped = false;

  const write = (text: string): void => {
    try {
      stream.write(text);
    } catch {
      // A closed stream (EPIPE) ends the display, never the run.
      stopTimer();
      stopped = true;
    }
  };
  const elapsed = (): number => clock.now() - startedAt;

  // Holds and settlements below the root send no event of their own: read them when drawing.
  const refreshBudget = (): void => {
    state.rootBudget = rootNode === undefined ? undefined : rootBudgetText(rootNode);
  };

  const draw = (): void => {
    refreshBudget();
    const columns = Math.max(20, stream.columns ?? 80);
    const lines = regionLines(state, elapsed(), maxRunning).map((line) => fit(line, columns));
    const text = lines.join('\n');
    if (text === drawnText) return;
    const up = drawnLines > 0 ? CURSOR_UP(drawnLines) : '';
    const clearRest = lines.length < drawnLines ? CLEAR_BELOW : '';
    write(`${up}${lines.map((line) => `${CLEAR_LINE}${line}\n`).join('')}${clearRest}`);
    drawnLines = lines.length;
    drawnText = text;
  };

  const summary = (): string => {
    refreshBudget();
    return `[progress ${formatElapsed(elapsed())}] ${countsLine(state)} · ${usageLine(state)}`;
  };

  const tick = (): void => {
    if (tty) {
      draw();
    } else if (state.version !== drawnVersion) {
      drawnVersion = state.version;
      write(`${summary()}\n`);
    }
  };

  const stopTimer = (): void => {
    cancelTimer?.();
    cancelTimer = undefined;
  };

  const finish = (): void => {
    stopTimer();
    if (rootId === undefined) return;
    if (tty) draw();
    else write(`${summary()}\n`);
    rootId = undefined;
    rootNode = undefined;
  };

  return {
    onEvent(event: WorkflowEvent, node?: WorkflowNode): void {
      if (stopped) return;
      if (rootId === undefined) {
        if (event.type !== 'workflowStart') return;
        // A new root run: a fresh display (a display may watch several runs one after another).
        state = new ProgressState();
        state.rootName = event.name;
        rootId = event.nodeId;
        rootNode = node;
        startedAt = clock.now();
        drawnLines = 0;
        drawnText = '';
        drawnVersion = -1;
        cancelTimer = timer(tick, tty ? intervalMs : summaryMs);
      }
      const finished = state.apply(event);
      if (event.type === 'workflowEnd' && event.nodeId === rootId) {
        state.rootStatus = event.status;
        if (!tty && finished !== undefined) write(`${finishLine(finished, state.waitingFor)}\n`);
        finish();
        return;
      }
      if (tty && drawnLines === 0) draw();
      if (!tty && finished !== undefined && (finished.kind === 'workflow' || finished.status !== 'completed')) {
        write(`${finishLine(finished, state.waitingFor)}\n`);
      }
    },
    stop(): void {
      if (stopped) return;
      finish();
      stopped = true;
    },
  };
}
