import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

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

  it('type-check', async () => {
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    await expect(run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: root })).resolves.toBeDefined();
  }, 60_000);

  it.each(files.map((file, i) => [i + 1, file] as const))('snippet %i runs', async (_n, file) => {
    const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
    const { stderr } = await run(process.execPath, [tsx, '--tsconfig', join(root, 'tsconfig.json'), file], {
      cwd: root,
    });
    expect(stderr).toBe('');
  }, 60_000);
});
