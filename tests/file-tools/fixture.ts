import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Tool, ToolContext } from 'groundswell';

export interface Fixture {
  /** The project root handed to readOnlyTools. */
  readonly root: string;
  /** A directory next to the root whose name starts with the root's name, to catch prefix-only checks. */
  readonly outside: string;
  cleanup(): Promise<void>;
}

export const SECRET = 'TOP-SECRET-OUTSIDE-ROOT';

/**
 * root/
 *   src/alpha.ts, src/beta.ts, notes.md, deep/a/b/found.test.ts, image.bin (has a NUL byte)
 *   node_modules/pkg/index.js   (skipped by searches)
 *   link-inside  -> src/alpha.ts
 *   link-out     -> ../root-outside/secret.txt
 *   linkdir-out  -> ../root-outside
 * root-outside/secret.txt
 */
export async function makeFixture(): Promise<Fixture> {
  const base = await mkdtemp(path.join(tmpdir(), 'gs-judge-'));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'root-outside');
  await mkdir(path.join(root, 'src'), { recursive: true });
  await mkdir(path.join(root, 'deep', 'a', 'b'), { recursive: true });
  await mkdir(path.join(root, 'node_modules', 'pkg'), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(root, 'src', 'alpha.ts'), 'export const alpha = 1;\nconst beta = 2;\nexport const ALPHA_TOO = alpha + beta;\n');
  await writeFile(path.join(root, 'src', 'beta.ts'), 'export const beta = "b";\n');
  await writeFile(path.join(root, 'notes.md'), '# Notes\n\nalpha is documented here.\n');
  await writeFile(path.join(root, 'deep', 'a', 'b', 'found.test.ts'), 'it("alpha works", () => {});\n');
  await writeFile(path.join(root, 'image.bin'), Buffer.from([0x89, 0x50, 0x00, 0x61, 0x6c, 0x70, 0x68, 0x61]));
  await writeFile(path.join(root, 'node_modules', 'pkg', 'index.js'), 'module.exports = "alpha";\n');
  await writeFile(path.join(outside, 'secret.txt'), `${SECRET}\nalpha\n`);
  await symlink(path.join(root, 'src', 'alpha.ts'), path.join(root, 'link-inside'));
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'link-out'));
  await symlink(outside, path.join(root, 'linkdir-out'), 'dir');
  return { root, outside, cleanup: () => rm(base, { recursive: true, force: true }) };
}

export const context: ToolContext = { env: {}, signal: undefined, agentName: 'judge', toolUseId: 'toolu_test' };

/** Validates the input with the tool's own schema (as the agent loop does), then runs it. */
export async function run(tools: readonly Tool[], name: string, input: unknown): Promise<string> {
  const tool = tools.find((candidate) => candidate.name === name);
  if (tool === undefined) throw new Error(`no tool named ${name}`);
  const result: unknown = await tool.execute(tool.input.parse(input), context);
  if (typeof result !== 'string') throw new Error(`tool ${name} returned a ${typeof result}, expected a string`);
  return result;
}
