import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { SnippetOutcome } from './run-snippets.js';

// The README's TypeScript snippets are documentation users copy: each must type-check and run.
const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const snippets = [...readFileSync(join(root, 'README.md'), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map(
  (match) => match[1] ?? '',
);
const dir = join(root, '.tmp', 'readme-snippets');

describe('README snippets', () => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = snippets.map((code, i) => {
    const file = join(dir, `snippet-${i + 1}.ts`);
    // `export {}` makes each snippet a module, so top-level await and local names are allowed.
    writeFileSync(file, `${code}\nexport {};\n`);
    return file;
  });
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: '../../tsconfig.base.json', include: ['./*.ts'] }),
  );

  it('has snippets to check', () => {
    expect(snippets.length).toBeGreaterThanOrEqual(5);
  });

  // Both child processes start at once and run while the tests below wait on them.
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const typeCheck = run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: root });
  typeCheck.catch(() => undefined);
  const outFile = join(dir, 'outcomes.json');
  const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const runner = fileURLToPath(new URL('./run-snippets.ts', import.meta.url));
  const ran = run(process.execPath, [tsx, '--tsconfig', join(root, 'tsconfig.json'), runner, outFile, ...files], {
    cwd: root,
  }).then(() => new Map((JSON.parse(readFileSync(outFile, 'utf8')) as SnippetOutcome[]).map((o) => [o.file, o])));
  ran.catch(() => undefined);

  it('type-check', async () => {
    await expect(typeCheck).resolves.toBeDefined();
  }, 180_000);

  it.each(files.map((file, i) => [i + 1, file] as const))('snippet %i runs', async (_n, file) => {
    const outcome = (await ran).get(file);
    expect(outcome?.error).toBe('');
    expect(outcome?.stderr).toBe('');
  }, 180_000);
});
