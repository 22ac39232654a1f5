/**
 * Runs every `examples/NN-*.ts` in order and exits non-zero if any failed.
 *
 * All examples share one process: starting Node and compiling the library once instead of once
 * per example is what keeps `npm run examples` fast (decision 0025). Examples are plain
 * top-level scripts with no process-wide side effects, so sharing is safe; a stray unhandled
 * rejection is charged to the example that was running, and `--isolate` restores one process
 * per example when you suspect a leak between them.
 *
 * Run: npm run examples            (or: npx tsx examples/run-all.ts [--isolate] [NN ...])
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const TIMEOUT_MS = 60_000;

const examplesDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = dirname(examplesDir);
const args = process.argv.slice(2);
const isolate = args.includes('--isolate');
const only = args.filter((arg) => /^\d{2}$/.test(arg));

const files = readdirSync(examplesDir)
  .filter((name) => /^\d{2}-.+\.ts$/.test(name))
  .filter((name) => only.length === 0 || only.includes(name.slice(0, 2)))
  .sort();

interface Outcome {
  file: string;
  ok: boolean;
  detail: string;
  ms: number;
}

function describeFailure(reason: unknown): string {
  return reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
}

/** Failures that escape an example's own awaits (a forgotten promise, a throwing timer). */
let stray: unknown[] = [];
process.on('unhandledRejection', (reason) => stray.push(reason));
process.on('uncaughtException', (error) => stray.push(error));

async function importExample(file: string): Promise<Outcome> {
  const started = performance.now();
  stray = [];
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${TIMEOUT_MS / 1000}s`)), TIMEOUT_MS);
  });
  try {
    await Promise.race([import(pathToFileURL(join(examplesDir, file)).href), timeout]);
    // Let anything the example left scheduled for this turn report before it is judged.
    await new Promise((resolve) => setImmediate(resolve));
    if (stray.length > 0) throw stray[0];
    return { file, ok: true, detail: 'ok', ms: performance.now() - started };
  } catch (error) {
    console.error(describeFailure(error));
    return { file, ok: false, detail: error instanceof Error ? error.message : String(error), ms: performance.now() - started };
  } finally {
    clearTimeout(timer);
  }
}

// The tsx loader this project has installed, for --isolate: the same TypeScript setup (including
// the tsconfig `paths` entry that maps 'groundswell' to src/) in a fresh process per example.
function spawnExample(file: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', import.meta.resolve('tsx'), join(examplesDir, file)], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    const finish = (ok: boolean, detail: string): void => {
      clearTimeout(timer);
      resolve({ file, ok, detail, ms: performance.now() - started });
    };
    child.on('error', (error) => finish(false, `could not start: ${error.message}`));
    child.on('exit', (code, signal) => {
      if (code === 0) finish(true, 'ok');
      else finish(false, signal !== null ? `killed by ${signal}` : `exit code ${String(code)}`);
    });
  });
}

if (files.length === 0) {
  console.error(`No examples (NN-*.ts) found in ${relative(process.cwd(), examplesDir) || '.'}`);
  process.exit(1);
}

const runStarted = performance.now();
const outcomes: Outcome[] = [];
for (const file of files) {
  console.log(`\n${'='.repeat(20)} examples/${file} ${'='.repeat(20)}`);
  outcomes.push(await (isolate ? spawnExample(file) : importExample(file)));
}

console.log(`\n${'='.repeat(20)} summary ${'='.repeat(20)}`);
for (const { file, ok, detail, ms } of outcomes) {
  // The first example also pays for compiling the library it imports.
  console.log(`${ok ? '✓' : '✗'} ${file} (${(ms / 1000).toFixed(2)}s)${ok ? '' : ` — ${detail}`}`);
}
// A timer, socket or child process an example left open would keep a process of its own alive
// forever; in the shared process it is a leak to report, not a hang.
const openResources = (): string[] => process.getActiveResourcesInfo().filter((kind) => kind !== 'TTYWrap' && kind !== 'PipeWrap');
// What is still settling (a file read, a module the loader thread is finishing) ends by itself:
// wait while the set shrinks, and report only what stays.
let open = openResources();
for (let waits = 0; open.length > 0 && waits < 50; waits += 1) {
  await new Promise((resolve) => setTimeout(resolve, 20));
  const now = openResources();
  if (now.length === 0) open = now;
  else if (now.length >= open.length && waits >= 10) break;
  else open = now;
}
const leaked = open.filter((kind) => !kind.startsWith('FSReq'));
if (leaked.length > 0 && !isolate) {
  outcomes.push({ file: '(after all examples)', ok: false, detail: `left open: ${leaked.join(', ')}`, ms: 0 });
  console.log(`✗ resources left open after the examples: ${leaked.join(', ')}`);
}
const failed = outcomes.filter((outcome) => !outcome.ok);
const total = `${((performance.now() - runStarted) / 1000).toFixed(1)}s`;
if (failed.length > 0) {
  console.error(`\n${failed.length} of ${outcomes.length} examples failed in ${total}: ${failed.map((o) => o.file).join(', ')}`);
  process.exitCode = 1;
} else {
  console.log(`\nAll ${outcomes.length} examples passed in ${total}.`);
}
// Exit even if something was left open: it has been reported above.
process.exit();
