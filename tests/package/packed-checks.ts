import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureFreshDist } from './fresh-dist.js';
import { runProcess } from './run-process.js';
import { packAndInstall } from './scratch-install.js';

const fixtures = fileURLToPath(new URL('./fixtures', import.meta.url));
// Generous per process: these take seconds, but a hang must end the step, not the CI job.
const SCRIPT_TIMEOUT_MS = 60_000;

export const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

interface Check {
  readonly args: readonly string[];
  /** What the script prints when every assertion in it held. */
  readonly expect: string;
  /** Why it cannot run on this Node, when it cannot (the check's own tooling, not the package). */
  readonly skip?: string;
}

/** Some of the packed-package checks failed on one Node; the message names each. */
export class PackedChecksError extends Error {
  constructor(message: string, options: { cause: readonly string[] }) {
    super(message, options);
    this.name = 'PackedChecksError';
  }
}

/** Environment for a Node other than this one: it must not inherit options meant for this one (tsx's, a debugger's). */
export function foreignNodeEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  return env;
}

/**
 * The packed package under the Node binary `node` (version `version`): `npm pack`s `root` into a
 * scratch project under `work` and runs the runtime fixtures (every entry from ESM and CommonJS,
 * no MCP SDK or zod loaded unasked, a durable run and the command line). Every check runs, so one
 * CI log shows all that fails on this Node, not only the first; throws when any failed.
 */
export async function runPackedChecks(root: string, node: string, version: string, work: string, log: (line: string) => void): Promise<void> {
  await ensureFreshDist(root, log);
  const scratch = join(work, 'scratch');
  mkdirSync(scratch, { recursive: true });
  writeFileSync(join(scratch, 'package.json'), '{ "name": "groundswell-node-check", "private": true }\n');
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

  const env = foreignNodeEnv();
  const failed: string[] = [];
  let ran = 0;
  // In order: the command line lists the durable run's folder.
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
  if (failed.length > 0) throw new PackedChecksError(`${failed.length} of ${ran} checks failed on Node ${version}: ${failed.join('; ')}`, { cause: failed });
  log(`packed package passed on Node ${version}: ${ran} of ${checks.length} checks ran`);
}
