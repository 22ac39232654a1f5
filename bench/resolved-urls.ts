/**
 * Which modules a Node program loaded (W8, W14): the URLs a resolve hook saw in one extra run of
 * it, never a timed one (the hook slows every import).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './built-package.js';

/**
 * Runs `node ...args` (in the package root) with a resolve hook; resolves to every URL it resolved.
 * Asynchronous: the program may talk to a server in this process.
 */
export async function resolvedUrls(args: readonly string[]): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'gs-bench-resolved-'));
  try {
    const log = join(dir, 'resolved.txt');
    writeFileSync(log, '');
    const hooks = join(dir, 'hooks.mjs');
    writeFileSync(
      hooks,
      `import { appendFileSync } from 'node:fs';\n` +
        `export async function resolve(specifier, context, next) {\n` +
        `  const result = await next(specifier, context);\n` +
        `  appendFileSync(${JSON.stringify(log)}, result.url + '\\n');\n` +
        `  return result;\n}\n`,
    );
    const register = join(dir, 'register.mjs');
    writeFileSync(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    await run(['--import', pathToFileURL(register).href, ...args]);
    return readFileSync(log, 'utf8').split('\n').filter((url) => url !== '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether `urls` include a module of the package `name` (optionally a file under it). */
export function loadedFrom(urls: readonly string[], name: string): boolean {
  return urls.some((url) => url.includes(`/node_modules/${name}`));
}

function run(args: readonly string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`node ${args.join(' ')} exited ${code}\n${stderr}`))));
  });
}
