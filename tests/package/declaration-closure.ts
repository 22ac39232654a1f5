import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const RELATIVE_IMPORT = /(?:from|import\()\s*['"](\.\/[^'"]+)['"]/g;

/**
 * An entry's declaration file and every chunk declaration it imports, transitively: what a
 * compiler reads for that entry before it reaches another package.
 */
export function declarationClosure(entry: string): string[] {
  const seen = new Set<string>();
  const queue = [entry];
  for (let file = queue.pop(); file !== undefined; file = queue.pop()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const [, specifier = ''] of readFileSync(file, 'utf8').matchAll(RELATIVE_IMPORT)) {
      queue.push(join(dirname(file), specifier.replace(/\.js$/, '.d.ts').replace(/\.cjs$/, '.d.cts')));
    }
  }
  return [...seen].sort();
}
