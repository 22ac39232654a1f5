import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installNode, lowestNodeVersion } from './node-from-npm.js';
import { runPackedChecks, seconds } from './packed-checks.js';

// CI step (.ci/run, after the tests): the packed package under the lowest Node version
// `engines.node` admits, with that version's official binary from the npm registry. The tests run
// on one newer Node; this proves the promise in package.json. Usage: npx tsx tests/package/lowest-node.ts

const root = fileURLToPath(new URL('../..', import.meta.url));

const log = (line: string): void => console.log(`lowest-node: ${line}`);

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
  await runPackedChecks(root, node, version, work, log);
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
