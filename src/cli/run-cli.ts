import { parseArgs } from 'node:util';
import { WorkflowTreeDebugger } from '../debugger/tree-debugger.js';
import { isSuspension } from '../errors/predicates.js';
import { RUN_STATUSES, type RunStatus } from '../durable/store/run-record.js';
import type { RunExport } from '../types/serialized.js';
import type { LeaseHolder, RunStore } from '../durable/store/run-store.js';
import { errorMessage } from '../util/describe.js';
import { inertText } from '../util/inert-text.js';
import { resume } from '../durable/runtime/resume.js';
import { SignalNameError } from '../durable/runtime/replay-errors.js';
import { RunFencedError, RunLeaseError } from '../durable/store/run-store-errors.js';
import { signal } from '../durable/runtime/signal.js';
import { CliUsageError, inertIo, processIo, type CliIo } from './cli-io.js';
import { runDetails, runLine } from './format-run.js';
import { loadWorkflows } from './load-workflows.js';
import { openStore } from './open-store.js';
import { reportError } from './report-error.js';
import { viewCommand, type ViewFlags } from './view-command.js';
import { exportCommand, forkCommand, replayCommand } from './replay-command.js';
import { diffCommand, evalCommand, type CompareFlags } from './compare-command.js';

const USAGE = `Usage: groundswell runs <command> [options]
       groundswell view <run.json> | view (--store <dir> | --pg <url>) [runId]
       groundswell view --compare <a.json> <b.json> | view (--store <dir> | --pg <url>) --compare <runA> <runB>
       groundswell replay <recording.json> --workflows <module>
       groundswell diff <a.json> <b.json> [--scorers <module>] [--json]
       groundswell eval <dir-or-files...> [--workflows <module>] [--scorers <module>] [--json]

Commands:
  list [--status <s>[,<s>]] [--limit <n>]     runs, newest first: status, tokens and cost stored so
                                                far; a running one says whether its holder is alive
  show <runId> [--json]                         a run: status, tokens, cost and its tree
  resume <runId> --workflows <module> [--take-over]
                                                continue an interrupted or suspended run here. A
                                                holder on this machine whose process is gone is
                                                taken over at once; --take-over takes the run from
                                                any holder (one known dead on another machine): if
                                                it is alive after all, its writes are refused
  signal <runId> <name> <json> [--workflows <module>] [--ahead]
                                                send a value to a waiting run (and resume it);
                                                --ahead: for a wait it has not reached yet
  export <runId> [--out <file>]                 the run as one recording file (stdout without --out)
  fork <runId> --at <step> --workflows <module> a new run: what the run did before the step is
                                                served from it, the rest runs live with the module's code
  replay <recording.json> --workflows <module>  run the current code against a recording with the
                                                network closed: exit 0 when the same, 1 at the
                                                first divergence (printed with a diff)
  diff <a.json> <b.json> [--scorers <module>]   compare two recordings node by node (outcome,
                                                answer diff, tokens, cost, duration, sign-offs,
                                                scores); exit 0 (2 when a file is not a recording)
  eval <dir-or-files...> [--workflows <module>] [--scorers <module>]
                                                recordings as a dataset, offline: replayed (with
                                                --workflows) and scored, one row each; exit 1
                                                when one diverged
  view <run.json>                               serve a run export in a local web page
  view --store <dir> [runId], view --pg <url> [runId]
                                                the same for a stored run (followed while it runs);
                                                without a run id: list the runs
  view --compare <a.json> <b.json>              two recordings side by side: a row per node, changed,
                                                added and missing ones highlighted, a row's answer diff
                                                (with --store/--pg: two stored runs by id)
    --port <n>       the port (default: a free one; the URL is printed)
    --host <addr>    the address to bind (default 127.0.0.1: this machine only)
    --allow-signals  let the page answer a stored run's wait: a form from the wait's schema
                     sends the signal as \`runs signal\` does (off by default; loopback only)

Store (one of):
  --store <dir>      a journal store folder
  --pg <url>         a PostgreSQL store; --schema <name> (default groundswell)
  With neither, runs commands read PostgreSQL at GROUNDSWELL_PG_URL when it is set,
  else the journal in .groundswell/runs (view reads a store only when given one).`;

/**
 * The `groundswell` command line; resolves to the exit code (0 ok, 1 failed, 2 misused). `view`
 * serves until `stop` settles (by default: Ctrl+C or SIGTERM).
 */
export async function runCli(argv: readonly string[], output: CliIo = processIo, stop?: Promise<unknown>): Promise<number> {
  const io = inertIo(output);
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        store: { type: 'string' },
        pg: { type: 'string' },
        schema: { type: 'string' },
        status: { type: 'string' },
        limit: { type: 'string' },
        workflows: { type: 'string' },
        json: { type: 'boolean' },
        ahead: { type: 'boolean' },
        port: { type: 'string' },
        host: { type: 'string' },
        'allow-signals': { type: 'boolean' },
        compare: { type: 'string' },
        out: { type: 'string' },
        at: { type: 'string' },
        scorers: { type: 'string' },
        'take-over': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.err(`${inertText(errorMessage(error))}\n\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [group, command, ...rest] = positionals;
  if (values.help === true || group === undefined) {
    io.out(USAGE);
    return group === undefined && values.help !== true ? 2 : 0;
  }
  if (group === 'view') return view(command, values, io, stop ?? interrupted());
  if (group === 'replay') return replay(command, values.workflows, io);
  if (group === 'diff' || group === 'eval') return compare(group, positionals.slice(1), values, io);
  if (group !== 'runs' || command === undefined) {
    io.err(`Unknown command "${inertText([group, command].filter(Boolean).join(' '))}".\n\n${USAGE}`);
    return 2;
  }
  let store: RunStore | undefined;
  try {
    store = await openStore(values);
    switch (command) {
      case 'list':
        return await list(store, values.status, values.limit, io);
      case 'show':
        return await show(store, need(rest[0], 'a run id'), values.json === true, io);
      case 'resume':
        return await resumeCommand(store, rest[0], values.workflows, values['take-over'] === true, io);
      case 'signal':
        return await sendSignal(store, rest, values.workflows, values.ahead === true, io);
      case 'export':
        return await exportCommand(store, need(rest[0], 'a run id'), values.out, io);
      case 'fork':
        return await forkCommand(store, need(rest[0], 'a run id'), values.at, values.workflows, io);
      default:
        throw new CliUsageError(`Unknown command "runs ${command}".`);
    }
  } catch (error) {
    return reportError(error, io, USAGE);
  } finally {
    await store?.close();
  }
}

async function view(target: string | undefined, flags: ViewFlags, io: CliIo, stop: Promise<unknown>): Promise<number> {
  try {
    return await viewCommand(target, flags, io, stop);
  } catch (error) {
    return reportError(error, io, USAGE);
  }
}

async function replay(file: string | undefined, workflowsPath: string | undefined, io: CliIo): Promise<number> {
  try {
    return await replayCommand(file, workflowsPath, io);
  } catch (error) {
    return reportError(error, io, USAGE);
  }
}

async function compare(group: 'diff' | 'eval', files: readonly string[], flags: CompareFlags, io: CliIo): Promise<number> {
  try {
    return await (group === 'diff' ? diffCommand(files, flags, io) : evalCommand(files, flags, io));
  } catch (error) {
    return reportError(error, io, USAGE);
  }
}

/** Settles on the first Ctrl+C or SIGTERM (then the viewer closes and the process can exit). */
function interrupted(): Promise<void> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => resolve());
    process.once('SIGTERM', () => resolve());
  });
}

function need(value: string | undefined, what: string): string {
  if (value === undefined || value === '') throw new CliUsageError(`Missing ${what}.`);
  return value;
}

async function list(store: RunStore, status: string | undefined, limit: string | undefined, io: CliIo): Promise<number> {
  const statuses = status?.split(',').map((s) => s.trim());
  for (const s of statuses ?? []) {
    if (!RUN_STATUSES.includes(s as RunStatus)) throw new CliUsageError(`--status must be one of ${RUN_STATUSES.join(', ')}, got "${s}".`);
  }
  const max = limit === undefined ? 50 : Number(limit);
  if (!Number.isInteger(max) || max < 1) throw new CliUsageError(`--limit must be a positive integer, got "${limit}".`);
  const runs = await store.listRuns({ ...(statuses !== undefined ? { status: statuses as RunStatus[] } : {}), limit: max });
  if (runs.length === 0) io.out('No runs.');
  for (const run of runs) io.out(runLine(run, run.status === 'running' ? await holderOf(store, run.id) : undefined));
  return 0;
}

/** Who holds a running run's lease: undefined when the store cannot say. */
async function holderOf(store: RunStore, runId: string): Promise<LeaseHolder | null | undefined> {
  if (store.leaseOf === undefined) return undefined;
  try {
    return (await store.leaseOf(runId)) ?? null;
  } catch {
    // A lease the store cannot read (damaged) leaves the line as it was; `runs resume` reports it.
    return undefined;
  }
}

async function show(store: RunStore, runId: string, json: boolean, io: CliIo): Promise<number> {
  const loaded = await store.loadRun(runId);
  if (json) {
    io.out(JSON.stringify({ run: loaded.run, steps: loaded.steps.length, calls: loaded.calls.length, tree: loaded.tree ?? null }, null, 2));
    return 0;
  }
  for (const line of runDetails(loaded.run)) io.out(line);
  io.out(`stored    ${loaded.steps.length} settled steps, ${loaded.calls.length} agent calls, ${loaded.signals.length} signals`);
  if (loaded.tree !== undefined) {
    io.out('');
    // The tree string escapes each stored name and message itself (its own line breaks stay).
    io.out(new WorkflowTreeDebugger(loaded.tree as RunExport).toTreeString());
  } else {
    io.out('(no tree stored yet: the run has not ended, suspended or checkpointed its tree)');
  }
  return 0;
}

async function resumeCommand(
  store: RunStore,
  runId: string | undefined,
  workflowsPath: string | undefined,
  takeOver: boolean,
  io: CliIo,
): Promise<number> {
  const id = need(runId, 'a run id');
  const workflows = await loadWorkflows(workflowsPath);
  try {
    return await settle(io, id, () => resume(id, { store, workflows, ...(takeOver ? { takeOver: true } : {}) }));
  } catch (error) {
    // Held by a live-looking process: say how to take the run over when the operator knows better.
    if (takeOver || !(error instanceof RunLeaseError) || error instanceof RunFencedError) throw error;
    io.err(
      `${inertText(error.name)}: ${inertText(error.message)}\n` +
        `If that holder is dead (its machine is gone), take the run over with: groundswell runs resume ${inertText(id)} --workflows <module> --take-over`,
    );
    return 1;
  }
}

async function sendSignal(store: RunStore, rest: readonly string[], workflowsPath: string | undefined, ahead: boolean, io: CliIo): Promise<number> {
  const runId = need(rest[0], 'a run id');
  const name = need(rest[1], 'a signal name');
  const text = need(rest[2], 'a JSON value');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new CliUsageError(`The signal value must be JSON (e.g. '{"approved":true}'), got ${text}.`);
  }
  const workflows = workflowsPath === undefined ? undefined : await loadWorkflows(workflowsPath);
  try {
    if (workflows === undefined) {
      await signal(runId, name, value, { store, ahead });
      io.out(`Signal "${inertText(name)}" stored for run ${inertText(runId)}; resume it with: groundswell runs resume ${inertText(runId)} --workflows <module>`);
      return 0;
    }
    return await settle(io, runId, () => signal(runId, name, value, { store, workflows, ahead }));
  } catch (error) {
    if (!(error instanceof SignalNameError)) throw error;
    // A misspelt name is a mistake in the call (exit 2), told in the CLI's own terms.
    const near = error.suggestion === undefined ? '' : ` Did you mean "${error.suggestion}"?`;
    io.err(inertText(`Run ${runId} waits for signal "${error.waitingFor}", not "${name}"; nothing was stored.${near}`));
    io.err('To store a signal for a wait the run reaches later, add --ahead.');
    return 2;
  }
}

async function settle(io: CliIo, runId: string, work: () => Promise<unknown>): Promise<number> {
  try {
    const result = await work();
    io.out(`Run ${inertText(runId)} completed: ${inertText(JSON.stringify(result) ?? 'undefined')}`);
    return 0;
  } catch (error) {
    if (isSuspension(error)) {
      io.out(`Run ${inertText(runId)} is suspended: it waits for signal "${inertText(error.waitingFor)}".`);
      return 0;
    }
    throw error;
  }
}
