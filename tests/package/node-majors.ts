import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installNode, latestNodeVersion } from './node-from-npm.js';
import { foreignNodeEnv, runPackedChecks, seconds } from './packed-checks.js';
import { npmCommand, runProcess } from './run-process.js';

// CI step (.ci/run, after the lowest Node): the packed package's checks and the examples on the
// newest release of each Node line users run besides the one the tests run on, with its official
// binary from the npm registry. Usage: npx tsx tests/package/node-majors.ts [major ...]

const MAJORS = [22, 24];
const root = fileURLToPath(new URL('../..', import.meta.url));
const tsxCli = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
// The examples take about half a minute together; a hang must end the step, not the CI job.
const EXAMPLES_TIMEOUT_MS = 300_000;

async function checkMajor(major: number, work: string): Promise<void> {
  const log = (line: string): void => console.log(`node-${major}: ${line}`);
  const version = await latestNodeVersion(major);
  log(`newest Node ${major} on npm: ${version}`);
  const nodeDir = join(work, 'node');
  mkdirSync(nodeDir, { recursive: true });
  const installStarted = performance.now();
  const node = await installNode(version, nodeDir);
  log(`installed ${node} (v${version}) in ${seconds(performance.now() - installStarted)}`);

  await runPackedChecks(root, node, version, work, log);
  await checkAiSdk7(node, version, work, log);

  // tsx's own launcher, run by this Node, so the examples (TypeScript) run on it, not on the CI's.
  log(`run ${node} ${tsxCli} examples/run-all.ts`);
  const examples = await runProcess(node, [tsxCli, 'examples/run-all.ts'], {
    cwd: root,
    label: `Node ${version}: examples`,
    env: foreignNodeEnv(),
    timeoutMs: EXAMPLES_TIMEOUT_MS,
  });
  const summary = examples.stdout.trim().split('\n').at(-1) ?? '';
  if (!/^All \d+ examples passed/.test(summary)) throw new Error(`Node ${version}: examples exited 0 without "All N examples passed":\n${examples.stdout}\n${examples.stderr}`);
  log(`ok   examples on Node ${version}: ${summary} (${seconds(examples.ms)})`);
}

// AI SDK 7's providers (language model spec v4) need Node 22: installed here, beside the packed
// package that runPackedChecks installed into <work>/scratch, and run on this Node.
const AI_SDK_7_PROVIDER = '@ai-sdk/openai-compatible@3.0.92';
// The AI SDK 7 front-end reader (`readUIMessageStream`) a web page uses, for the run stream's protocol check.
const AI_SDK_7_UI = 'ai@7.0.173';

async function checkAiSdk7(node: string, version: string, work: string, log: (line: string) => void): Promise<void> {
  const dir = join(work, 'ai-sdk-7');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{ "name": "groundswell-ai-sdk-7-check", "private": true, "type": "module" }\n');
  const npm = npmCommand();
  await runProcess(npm.file, [...npm.args, 'install', '--ignore-scripts', '--no-audit', '--no-fund', AI_SDK_7_PROVIDER, AI_SDK_7_UI], { cwd: dir, label: `npm install ${AI_SDK_7_PROVIDER} ${AI_SDK_7_UI}` });
  // The packed package and zod as the scratch project has them (one zod instance for both).
  // npm may have put its own zod there (a peer of the provider's utilities): replaced, so one zod.
  for (const name of ['groundswell', 'zod']) {
    const link = join(dir, 'node_modules', name);
    rmSync(link, { recursive: true, force: true });
    symlinkSync(join(work, 'scratch', 'node_modules', name), link, 'dir');
  }
  cpSync(join(root, 'tests', 'package', 'fixtures', 'ai-sdk-7', 'check.mjs'), join(dir, 'check.mjs'));
  const output = await runProcess(node, ['check.mjs'], { cwd: dir, label: `Node ${version}: AI SDK 7 check`, env: foreignNodeEnv(), timeoutMs: 120_000 });
  if (!output.stdout.includes('ai sdk 7 ok')) throw new Error(`Node ${version}: the AI SDK 7 check exited 0 without "ai sdk 7 ok":\n${output.stdout}\n${output.stderr}`);
  log(`ok   ${AI_SDK_7_PROVIDER}: ${output.stdout.trim()} (${seconds(output.ms)})`);
}

async function main(): Promise<void> {
  const majors = process.argv.length > 2 ? process.argv.slice(2).map(Number) : MAJORS;
  const failed: string[] = [];
  // One after the other: the examples start servers and workers, and a log per line reads better.
  for (const major of majors) {
    const started = performance.now();
    const work = mkdtempSync(join(tmpdir(), `groundswell-node-${major}-`));
    try {
      await checkMajor(major, work);
      rmSync(work, { recursive: true, force: true });
      console.log(`node-${major}: passed in ${seconds(performance.now() - started)}`);
    } catch (error) {
      console.error(`node-${major}: FAILED after ${seconds(performance.now() - started)} (files kept in ${work})`);
      console.error(error instanceof Error ? error.message : error);
      failed.push(`Node ${major}`);
    }
  }
  if (failed.length > 0) throw new Error(`failed on ${failed.join(', ')}`);
}

const started = performance.now();
main().then(
  () => console.log(`node-majors: Node ${process.argv.length > 2 ? process.argv.slice(2).join(', ') : MAJORS.join(', ')} passed in ${seconds(performance.now() - started)}`),
  (error: unknown) => {
    console.error(`node-majors: FAILED after ${seconds(performance.now() - started)}: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
