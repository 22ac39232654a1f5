import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import type { SnippetOutcome } from './run-snippets.js';

// The TypeScript snippets of the README and of every guide in docs/ are documentation users copy:
// each ```ts snippet must type-check and run. A snippet that cannot run here (it needs a server
// or a vendor SDK) is fenced as ```typescript and is neither checked nor run.
const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const pages = ['README.md', ...readdirSync(join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`)];
const linked = [...pages, 'examples/README.md'];
const texts = new Map(linked.map((page) => [page, readFileSync(join(root, page), 'utf8')]));
const snippets = pages.flatMap((page) =>
  [...(texts.get(page) ?? '').matchAll(/```ts\n([\s\S]*?)```/g)].map((match, i) => ({
    name: `${page.replace(/^docs\//, '').replace(/\.md$/, '').toLowerCase()}-${i + 1}`,
    page,
    code: match[1] ?? '',
  })),
);
const dir = join(root, '.tmp', 'doc-snippets');

// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to dashes.
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');
const anchorsOf = (text: string): Set<string> =>
  new Set([...text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1] ?? '')));

describe('README and guide links', () => {
  it('README stays an overview: the reference lives in the guides', () => {
    expect((texts.get('README.md') ?? '').split('\n').length).toBeLessThanOrEqual(350);
  });

  it.each(linked)('%s: every relative link resolves', (page) => {
    const text = (texts.get(page) ?? '').replace(/```[\s\S]*?```/g, '');
    const broken: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (target === undefined || /^[a-z]+:/i.test(target)) continue;
      const [path = '', anchor] = target.split('#');
      const file = path === '' ? join(root, page) : join(root, dirname(page), path);
      if (!existsSync(file)) {
        broken.push(target);
        continue;
      }
      if (anchor !== undefined && file.endsWith('.md') && !anchorsOf(readFileSync(file, 'utf8')).has(anchor)) {
        broken.push(target);
      }
    }
    expect(broken).toEqual([]);
  });

  it('cites no outside document', () => {
    expect(linked.filter((page) => /SPEC|§/.test(texts.get(page) ?? ''))).toEqual([]);
  });
});

describe('README and guide snippets', () => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const files = snippets.map(({ name, code }) => {
    const file = join(dir, `${name}.ts`);
    // `export {}` makes each snippet a module, so top-level await and local names are allowed.
    writeFileSync(file, `${code}\nexport {};\n`);
    return { name, file };
  });
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({ extends: '../../tsconfig.base.json', include: ['./*.ts'] }),
  );

  it('has snippets to check', () => {
    expect(snippets.filter((s) => s.page === 'README.md').length).toBeGreaterThanOrEqual(1);
    expect(snippets.length).toBeGreaterThanOrEqual(20);
  });

  // Both child processes start at once and run while the tests below wait on them.
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const typeCheck = run(process.execPath, [tsc, '-p', join(dir, 'tsconfig.json')], { cwd: root });
  typeCheck.catch(() => undefined);
  const outFile = join(dir, 'outcomes.json');
  const scratch = join(dir, 'cwd');
  mkdirSync(scratch);
  const tsx = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const runner = fileURLToPath(new URL('./run-snippets.ts', import.meta.url));
  const ran = run(
    process.execPath,
    [tsx, '--tsconfig', join(root, 'tsconfig.json'), runner, outFile, ...files.map((f) => f.file)],
    // A fresh working directory: a snippet that writes under process.cwd() (the journal store's
    // default `.groundswell/runs`) leaves nothing in the repository and finds nothing from a past run.
    { cwd: scratch, maxBuffer: 64 * 1024 * 1024 },
  ).then(() => new Map((JSON.parse(readFileSync(outFile, 'utf8')) as SnippetOutcome[]).map((o) => [o.file, o])));
  ran.catch(() => undefined);

  it('type-check', async () => {
    await expect(typeCheck).resolves.toBeDefined();
  }, 240_000);

  it.each(files.map(({ name, file }) => [name, file] as const))('snippet %s runs', async (_name, file) => {
    const outcome = (await ran).get(file);
    expect(outcome?.error).toBe('');
    expect(outcome?.stderr).toBe('');
  }, 240_000);
});
