import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFreshDist } from './fresh-dist.js';
import { installNode, lowestNodeVersion } from './node-from-npm.js';
import { runProcess } from './run-process.js';
import { packAndInstall } from './scratch-install.js';

// CI step (.ci/run, after the tests): the packed package under the lowest Node version
// `engines.node` admits, with that version's official binary from the npm registry. The tests run
// on one newer Node; this proves the promise in package.json. Usage: npx tsx tests/package/lowest-node.ts

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));
// Generous per process: these take seconds, but a hang must end the step, not the CI job.
const SCRIPT_TIMEOUT_MS = 60_000;

const log = (line: string): void => console.log(`lowest-node: ${line}`);
const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

interface Check {
  readonly args: readonly string[];
  /** What the script prints when every assertion in it held. */
  readonly expect: string;
  /** Why it cannot run on this Node, when it cannot (the check's own tooling, not the package). */
  readonly skip?: string;
}

async function main(work: string): Promise<void> {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines?: { node?: string } };
  const range = pkg.engines?.node;
  if (range === undefined) throw new Error('package.json has no engines.node');
  const version = lowestNodeVersion(range);
  log(`engines.node "${range}": checking Node ${version}`);

  const nodeDir = join(work, 'node');
  mkdirSync(nodeDir);
  const installStarted = performance.now();
  const node = await installNode(version, nodeDir);
  log(`installed ${node} (v${version}) in ${seconds(performance.now() - installStarted)}`);

  await ensureFreshDist(root, log);
  const scratch = join(work, 'scratch');
  mkdirSync(scratch);
  writeFileSync(join(scratch, 'package.json'), '{ "name": "groundswell-lowest-node", "private": true }\n');
  const install = await packAndInstall(root, scratch);
  log(`packed and installed into ${install.packageDir} (${install.packedFiles.length} files)`);
  const runtime = join(scratch, 'runtime');
  cpSync(join(fixtures, 'runtime'), runtime, { recursive: true });
  cpSync(join(fixtures, 'lowest-node'), runtime, { recursive: true });

  // The hooks that refuse the MCP SDK and zod in the ESM variants need module.register (Node 20.6).
  const hasRegister = (await runProcess(node, ['-p', "typeof require('node:module').register"], { cwd: runtime, label: 'module.register?' })).stdout.trim() === 'function';
  const noHooks = hasRegister ? undefined : `module.register, which the check's refusing hooks use, arrived in Node 20.6`;
  const runs = join(work, 'runs');
  const bin = join(install.packageDir, 'bin', 'groundswell.mjs');
  const checks: Check[] = [
    { args: ['entries.mjs'], expect: 'entries ok (esm)' },
    { args: ['entries.cjs'], expect: 'entries ok (cjs)' },
    { args: ['no-mcp.cjs'], expect: 'no MCP SDK (cjs)' },
    { args: ['no-zod.cjs'], expect: 'no zod (cjs)' },
    { args: ['no-mcp.mjs'], expect: 'no MCP SDK (esm)', ...(noHooks === undefined ? {} : { skip: noHooks }) },
    { args: ['no-zod.mjs'], expect: 'no zod (esm)', ...(noHooks === undefined ? {} : { skip: noHooks }) },
    { args: ['durable-run.cjs', runs], expect: 'durable run ok (cjs)' },
    { args: [bin, 'runs', 'list', '--store', runs], expect: 'lowest-node-run' },
  ];

  // The old Node must not inherit options meant for this one (tsx's, a debugger's).
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  // Every check runs (in order: the command line lists the durable run's folder), so one CI log
  // shows all that fails on this Node, not only the first.
  const failed: string[] = [];
  let ran = 0;
  for (const check of checks) {
    const shown = `node ${check.args.join(' ')}`;
    if (check.skip !== undefined) {
      log(`skip ${shown}: ${check.skip}`);
      continue;
    }
    ran += 1;
    try {
      const output = await runProcess(node, check.args, { cwd: runtime, label: `Node ${version}: ${shown}`, env, timeoutMs: SCRIPT_TIMEOUT_MS });
      if (!output.stdout.includes(check.expect)) {
        throw new Error(`Node ${version}: ${shown} exited 0 without printing "${check.expect}":\n${output.stdout}\n${output.stderr}`);
      }
      log(`ok   ${shown} -> "${check.expect}" (${seconds(output.ms)})`);
    } catch (error) {
      log(`FAIL ${shown}\n${error instanceof Error ? error.message : String(error)}`);
      failed.push(shown);
    }
  }
  if (failed.length > 0) throw new Error(`${failed.length} of ${ran} checks failed on Node ${version}: ${failed.join('; ')}`);
  log(`passed on Node ${version}: ${ran} of ${checks.length} checks ran`);
}

const started = performance.now();
const work = mkdtempSync(join(tmpdir(), 'groundswell-lowest-node-'));
main(work).then(
  () => {
    rmSync(work, { recursive: true, force: true });
    log(`done in ${seconds(performance.now() - started)}`);
  },
  (error: unknown) => {
    console.error(`lowest-node: FAILED after ${seconds(performance.now() - started)} (files kept in ${work})`);
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  },
);
