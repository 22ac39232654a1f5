/**
 * W14 (cold first call): in a fresh Node process, the first `agent.prompt()` on an AI SDK provider
 * model (`@ai-sdk/openai-compatible` over loopback HTTP) against a later call of the same agent
 * in the same process. Each call is the one step of its own workflow run and is timed as the
 * trace shows that step: from the call to its answer. The process imports what an application
 * imports (zod, groundswell, the provider package) before it calls; those imports are W8's.
 *
 * The stand-in server (`serveChatCompletions`) runs in this process, not the measured one: as a
 * local model server would, and because `groundswell/testing` loads the Anthropic SDK, which is
 * part of what a first call may wrongly wait for.
 *
 * Gate: the median over RUNS fresh processes of (first call / median of the later calls) ≤ 1.5×.
 * Info: the same call written by hand (`doGenerate()` + JSON.parse + schema.parse) measured the
 * same way, whose own first call pays for the provider's and Node's first HTTP request (Node
 * loads its fetch implementation then); and which SDKs the agent's process loaded.
 */
import { spawn } from 'node:child_process';
import { ScriptedModel, serveChatCompletions } from 'groundswell/testing';
import { ANSWER_STEP } from './agent-fixtures.js';
import { ensureDist, ROOT } from './built-package.js';
import { CALLS, coldCallProgram, type ColdCall, type ColdMode } from './cold-call-child.js';
import { fixed1, fmtX, median, recordRatio, section, table } from './harness.js';
import { loadedFrom, resolvedUrls } from './resolved-urls.js';

/** Fresh processes per variant (the gate is their median). */
const RUNS = 7;
/** Unmeasured rounds first: the first spawn reads every module from disk. */
const WARMUP = 1;
/** The first call ≤ 1.5× a later call of the same agent, in the same process. */
const TARGET_RATIO = 1.5;
const MODEL_ID = 'bench-model';
const MODES: readonly ColdMode[] = ['agent', 'hand'];

/** One fresh process's calls, reduced. */
interface Process {
  firstMs: number;
  laterMs: number;
  /** The first call's wait before its agentPromptStart, and a later call's (agent mode). */
  firstStartWaitMs: number | undefined;
  laterStartWaitMs: number | undefined;
}

function argsFor(mode: ColdMode, baseURL: string): string[] {
  return ['--input-type=module', '-e', coldCallProgram(mode, baseURL, MODEL_ID)];
}

function freshProcess(mode: ColdMode, baseURL: string): Promise<Process> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, argsFor(mode, baseURL), { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`W14: the ${mode} process exited ${code}\n${stderr}`));
      const calls = JSON.parse(stdout) as ColdCall[];
      if (calls.length !== CALLS) return reject(new Error(`W14: expected ${CALLS} calls, got ${calls.length}`));
      const later = calls.slice(1);
      resolve({
        firstMs: (calls[0] as ColdCall).ms,
        laterMs: median(later.map((call) => call.ms)),
        firstStartWaitMs: calls[0]?.startWaitMs,
        laterStartWaitMs: later[0]?.startWaitMs === undefined ? undefined : median(later.map((call) => call.startWaitMs ?? 0)),
      });
    });
  });
}

const ms = (value: number | undefined): string => (value === undefined ? '-' : `${fixed1(value)} ms`);

export async function runW14(): Promise<void> {
  section(
    `W14  cold first call: the first agent.prompt() on a provider model in a fresh process vs a later call (median of ${RUNS} fresh processes per variant)`,
  );
  ensureDist();
  const server = await serveChatCompletions(new ScriptedModel(() => ANSWER_STEP), { modelId: MODEL_ID });
  const runs = new Map<ColdMode, Process[]>(MODES.map((mode) => [mode, []]));
  let urls: string[];
  try {
    for (let round = 0; round < WARMUP + RUNS; round += 1) {
      // Alternating which goes first, so a load spike hits both.
      for (let k = 0; k < MODES.length; k += 1) {
        const mode = MODES[(round + k) % MODES.length] as ColdMode;
        const sample = await freshProcess(mode, server.baseURL);
        if (round >= WARMUP) runs.get(mode)?.push(sample);
      }
    }
    urls = await resolvedUrls(argsFor('agent', server.baseURL));
  } finally {
    await server.close();
  }

  const rows = MODES.map((mode) => {
    const samples = runs.get(mode) ?? [];
    const ratio = median(samples.map((s) => s.firstMs / s.laterMs));
    const gated = mode === 'agent';
    const waits = samples.map((s) => s.firstStartWaitMs).filter((wait): wait is number => wait !== undefined);
    const laterWaits = samples.map((s) => s.laterStartWaitMs).filter((wait): wait is number => wait !== undefined);
    return [
      gated ? 'agent.prompt() in a workflow step' : 'by hand in a workflow step: doGenerate() + JSON.parse + schema.parse (info)',
      ms(median(samples.map((s) => s.firstMs))),
      ms(median(samples.map((s) => s.laterMs))),
      fmtX(ratio),
      gated ? `${ms(median(waits))} / ${ms(median(laterWaits))}` : '-',
      gated ? `≤ ${fmtX(TARGET_RATIO)}` : '-',
      gated ? recordRatio('W14', 'cold process: first agent call vs a later one (provider model)', ratio, TARGET_RATIO) : '-',
    ];
  });
  console.log(
    table(
      ['variant', 'first call', 'later call', 'first / later', 'before agentPromptStart (first / later)', 'target', 'status'],
      rows,
      ['left', 'right', 'right', 'right', 'right', 'right', 'left'],
    ),
  );
  const anthropicClient = loadedFrom(urls, '@anthropic-ai/sdk/client.');
  console.log(
    `  (each process: import zod, groundswell (dist/) and @ai-sdk/openai-compatible, then ${CALLS} calls, each the one step of\n` +
      `   its own workflow run, timed from the call to its answer; "later call" = the median of calls 2-${CALLS}; "first / later"\n` +
      `   = the median over the processes of each one's ratio; ${WARMUP} warm-up round, variants alternating; the model server is\n` +
      `   serveChatCompletions(ScriptedModel) in the bench's process, over loopback HTTP;\n` +
      `   the agent's process loaded the Anthropic SDK's client: ${anthropicClient ? 'yes' : 'no'}; zod: ${loadedFrom(urls, 'zod/') ? 'yes' : 'no'})`,
  );
}
