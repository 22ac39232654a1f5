/**
 * Runs every `examples/NN-*.ts` in order, each in its own Node process (so one example's state,
 * observers or unhandled errors cannot leak into the next), and exits non-zero if any failed.
 *
 * Run: npm run examples   (or: npx tsx examples/run-all.ts)
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const TIMEOUT_MS = 60_000;

const examplesDir = dirname(fileURLToPath(import.meta.url));
const repoRoot = dirname(examplesDir);
// The tsx loader this project has installed: examples run offline with the same TypeScript setup
// (including the tsconfig `paths` entry that maps 'groundswell' to src/).
const tsxLoader = import.meta.resolve('tsx');

const files = readdirSync(examplesDir)
  .filter((name) => /^\d{2}-.+\.ts$/.test(name))
  .sort();

interface Outcome {
  file: string;
  ok: boolean;
  detail: string;
  ms: number;
}

function runExample(file: string): Promise<Outcome> {
  const started = performance.now();
  return new Promise((resolve) => {
    // stdio is inherited so the example's output streams straight through, in order.
    const child = spawn(process.execPath, ['--import', tsxLoader, join(examplesDir, file)], {
      cwd: repoRoot,
      stdio: 'inherit',
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, TIMEOUT_MS);
    const finish = (ok: boolean, detail: string): void => {
      clearTimeout(timer);
      resolve({ file, ok, detail, ms: performance.now() - started });
    };
    child.on('error', (error) => finish(false, `could not start: ${error.message}`));
    child.on('exit', (code, signal) => {
      if (timedOut) finish(false, `timed out after ${TIMEOUT_MS / 1000}s`);
      else if (code === 0) finish(true, 'ok');
      else finish(false, signal !== null ? `killed by ${signal}` : `exit code ${String(code)}`);
    });
  });
}

if (files.length === 0) {
  console.error(`No examples (NN-*.ts) found in ${relative(process.cwd(), examplesDir) || '.'}`);
  process.exit(1);
}

const outcomes: Outcome[] = [];
for (const file of files) {
  console.log(`\n${'='.repeat(20)} examples/${file} ${'='.repeat(20)}`);
  outcomes.push(await runExample(file));
}

console.log(`\n${'='.repeat(20)} summary ${'='.repeat(20)}`);
for (const { file, ok, detail, ms } of outcomes) {
  console.log(`${ok ? '✓' : '✗'} ${file} (${(ms / 1000).toFixed(2)}s)${ok ? '' : ` — ${detail}`}`);
}
const failed = outcomes.filter((outcome) => !outcome.ok);
if (failed.length > 0) {
  console.error(`\n${failed.length} of ${outcomes.length} examples failed: ${failed.map((o) => o.file).join(', ')}`);
  process.exitCode = 1;
} else {
  console.log(`\nAll ${outcomes.length} examples passed.`);
}
