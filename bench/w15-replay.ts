/**
 * W15: replaying recordings (issue 42). Two gates:
 * - a 1,000-call recording (W6's triage call, one per step) replayed from its file against the
 *   time it takes to load it. Loading is what a replay does before any code runs: readRecording
 *   of the file (read + JSON.parse + shape check) and MemoryRunStore.from of its run, calls,
 *   signals and data. The replay is all of replayRun(file): loading, running the workflow with
 *   every call served from the recording, and the checks. Target: replay ≤ 2× loading, so the
 *   running itself costs no more than reading the file (no hidden waits).
 * - a dataset: 100 recordings of 20 calls each (a fan-out of four children of five steps),
 *   replayed one after another from their files, offline. Target (absolute, from the issue):
 *   ≤ 10 s on this machine.
 * The recordings are made once, untimed, on MemoryRunStore with a scripted model; every replay
 * runs on a model that fails any request, and a request reaching it fails the workload.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgent, createPrompt, createWorkflow, type Agent, type Prompt, type Workflow, type WorkflowContext } from 'groundswell';
import { exportRecording, MemoryRunStore, readRecording, replayRun, writeRecording, type RunStore } from 'groundswell/durable';
import { ScriptedModel } from 'groundswell/testing';
import { ANSWER_STEP, makeTriageSchema, MODEL, SYSTEM, TICKET_DATA, USER } from './agent-fixtures.js';
import { elapsedNs, fmtBytes, fmtMs, fmtX, int, measureInterleaved, now, recordRatio, section, table } from './harness.js';

const LONG_CALLS = 1_000;
const DATASET = 100;
const CHILDREN = 4;
const CHILD_STEPS = 5;
/** Replay ≤ 2× loading the same recording. */
const TARGET_RATIO = 2;
/** The dataset replays in ≤ 10 s. */
const TARGET_DATASET_MS = 10_000;

function triageAgent(model: ScriptedModel): Agent {
  return createAgent({ name: 'triage', client: model.client(), system: SYSTEM, model: MODEL, enableCache: false });
}

/** One call per step, `calls` steps in a row. */
function longRun(model: ScriptedModel, prompt: Prompt<unknown>): (store: RunStore, runId: string) => Workflow {
  const agent = triageAgent(model);
  return (store, runId) =>
    createWorkflow({ name: 'Long', durable: { store, runId } }, async (ctx: WorkflowContext) => {
      for (let i = 0; i < LONG_CALLS; i += 1) await ctx.step('triage', () => agent.prompt(prompt));
      return LONG_CALLS;
    });
}

/** Four children at once, five calls each in a row; the ticket number is the run's input. */
function datasetRun(model: ScriptedModel, schema: ReturnType<typeof makeTriageSchema>): (input: unknown, store: RunStore, runId: string) => Workflow {
  const agent = triageAgent(model);
  return (input, store, runId) =>
    createWorkflow({ name: 'Tickets', durable: { store, runId, input } }, async (ctx: WorkflowContext) => {
      const ticket = Number(input);
      const child = (c: number) =>
        createWorkflow({ name: 'Queue' }, async (queue: WorkflowContext) => {
          for (let s = 0; s < CHILD_STEPS; s += 1) {
            await queue.step('triage', () => agent.prompt(createPrompt({ user: `${USER} (ticket ${ticket}, queue ${c}, pass ${s})`, data: TICKET_DATA, responseFormat: schema })));
          }
        });
      await ctx.spawnAll(Array.from({ length: CHILDREN }, (_, c) => child(c)));
      return ticket;
    });
}

/** Runs `workflow` once on a fresh MemoryRunStore and writes its recording to `file`. */
async function record(file: string, build: (store: RunStore, runId: string) => Workflow, runId: string, calls: number): Promise<void> {
  const store = new MemoryRunStore();
  await build(store, runId).run();
  const recording = await exportRecording(store, runId);
  if (recording.calls.length !== calls) throw new Error(`W15: the recording of ${runId} has ${recording.calls.length} calls, expected ${calls}`);
  await writeRecording(file, recording);
  await store.close();
}

/** What replayRun does before the code runs: the file read and checked, and the in-memory store made from it. */
async function load(file: string): Promise<MemoryRunStore> {
  const recording = await readRecording(file);
  const { run } = recording;
  return MemoryRunStore.from({
    run: { id: run.id, rootName: run.rootName, ...(run.input !== undefined ? { input: run.input } : {}), status: 'running', createdAt: run.createdAt, updatedAt: run.createdAt },
    calls: recording.calls,
    signals: recording.signals,
    data: recording.data.args === undefined ? {} : { args: recording.data.args },
  });
}

/** Replays `file` with the code as recorded on a closed model; anything but "same" fails the workload. */
async function replaySame(file: string, workflows: Parameters<typeof replayRun>[1]['workflows']): Promise<void> {
  const replay = await replayRun(file, { workflows });
  if (!replay.same) throw new Error(`W15: ${file} did not replay as the same: ${replay.divergence.summary}`);
}

export async function runW15(): Promise<void> {
  section('W15  replay: a 1,000-call recording replayed vs loaded; a dataset of 100 recordings of 20 calls replayed offline');
  const dir = mkdtempSync(join(tmpdir(), 'gs-w15-'));
  try {
    const schema = makeTriageSchema();
    const prompt = createPrompt({ user: USER, data: TICKET_DATA, responseFormat: schema });
    const longFile = join(dir, 'long.json');
    await record(longFile, longRun(new ScriptedModel(() => ANSWER_STEP), prompt), 'long', LONG_CALLS);
    const closed = new ScriptedModel([]);
    const replayLong = longRun(closed, prompt);
    const longWorkflows = { Long: (_input: unknown, context: { runId: string; store: RunStore }) => replayLong(context.store, context.runId) };

    const [loaded, replayed] = await measureInterleaved([() => load(longFile), () => replaySame(longFile, longWorkflows)], { warmup: 2, runs: 15 });
    if (loaded === undefined || replayed === undefined) throw new Error('W15: measureInterleaved returned fewer measurements than variants');
    const ratio = replayed.medianNs / loaded.medianNs;
    const rows: string[][] = [
      [`load: readRecording + MemoryRunStore.from (${int(LONG_CALLS)} calls, ${fmtBytes(statSync(longFile).size)})`, fmtMs(loaded.medianNs), fmtMs(loaded.minNs), '-', '-', '-'],
      ['replay: replayRun(file), every call served', fmtMs(replayed.medianNs), fmtMs(replayed.minNs), fmtX(ratio), `≤ ${fmtX(TARGET_RATIO)}`, recordRatio('W15', `replay of a ${int(LONG_CALLS)}-call recording vs loading it`, ratio, TARGET_RATIO)],
      ['per served call (info)', `${fmtMs(replayed.medianNs / LONG_CALLS)}`, '-', '-', '-', '-'],
    ];

    // The dataset: made once, replayed once end to end (the gate is the whole command's time).
    const files: string[] = [];
    const live = datasetRun(new ScriptedModel(() => ANSWER_STEP), schema);
    for (let i = 0; i < DATASET; i += 1) {
      const file = join(dir, `ticket-${i}.json`);
      await record(file, (store, runId) => live(i, store, runId), `ticket-${i}`, CHILDREN * CHILD_STEPS);
      files.push(file);
    }
    const offline = datasetRun(closed, schema);
    const datasetWorkflows = { Tickets: (input: unknown, context: { runId: string; store: RunStore }) => offline(input, context.store, context.runId) };
    const start = now();
    for (const file of files) await replaySame(file, datasetWorkflows);
    const datasetMs = elapsedNs(start) / 1e6;
    if (closed.requests.length !== 0) throw new Error(`W15: ${closed.requests.length} model requests escaped the replays`);
    rows.push([
      `dataset: ${DATASET} recordings × ${CHILDREN * CHILD_STEPS} calls, replayed one after another`,
      fmtMs(datasetMs * 1e6),
      '-',
      `${fmtMs((datasetMs * 1e6) / DATASET)} each`,
      `≤ ${int(TARGET_DATASET_MS / 1000)} s`,
      recordRatio('W15', `dataset of ${DATASET} recordings × ${CHILDREN * CHILD_STEPS} calls offline, time / ${int(TARGET_DATASET_MS / 1000)} s`, datasetMs / TARGET_DATASET_MS, 1),
    ]);
    console.log(table(['what', 'median', 'min', 'vs load', 'target', 'status'], rows, ['left', 'right', 'right', 'right', 'right', 'left']));
    console.log(`  model requests during the replays: ${closed.requests.length} (the replay model fails any request)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
