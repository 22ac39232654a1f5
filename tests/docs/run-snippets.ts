/**
 * Runs README and guide snippet files one after another in this one process and writes, per file, whether
 * it settled and what it wrote to stderr. One process (instead of one per snippet) compiles the
 * library once, which is most of the cost of running a snippet.
 *
 * Usage: tsx --tsconfig tsconfig.json tests/docs/run-snippets.ts <out.json> <snippet.ts>...
 */
import { writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

export interface SnippetOutcome {
  file: string;
  ok: boolean;
  error: string;
  stderr: string;
}

const [out, ...files] = process.argv.slice(2);
if (out === undefined) throw new Error('usage: run-snippets.ts <out.json> <snippet.ts>...');

let stray: unknown[] = [];
process.on('unhandledRejection', (reason) => stray.push(reason));
process.on('uncaughtException', (error) => stray.push(error));

const writeStderr = process.stderr.write.bind(process.stderr);
const outcomes: SnippetOutcome[] = [];
for (const file of files) {
  let stderr = '';
  stray = [];
  // Everything a snippet writes to stderr (console.error, console.warn, warnings) is charged to it.
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    return true;
  }) as typeof process.stderr.write;
  let error = '';
  try {
    await import(pathToFileURL(file).href);
    await new Promise((resolve) => setImmediate(resolve));
    if (stray.length > 0) throw stray[0];
  } catch (caught) {
    error = caught instanceof Error ? (caught.stack ?? caught.message) : String(caught);
  } finally {
    process.stderr.write = writeStderr;
  }
  outcomes.push({ file, ok: error === '', error, stderr });
}
writeFileSync(out, JSON.stringify(outcomes));
// A snippet that leaves a handle open must not hold the test up; the run is over.
process.exit(0);
