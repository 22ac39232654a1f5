import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { z } from 'zod';
import { defineTool, type Tool } from '../tools/tool.js';
import { boundWithNotes } from './bound-text.js';
import { CallBudget } from './call-budget.js';
import type { ConfinedRoot } from './confined-root.js';
import { compileGlob, isGlob } from './glob-pattern.js';
import type { ResolvedReadOnlyToolsOptions } from './read-only-tools-options.js';
import { walkFiles } from './walk-files.js';

const MAX_FOUND_FILES = 500;
const MAX_WALK_ENTRIES = 50_000;
/** Longest run of matching between two turns of the event loop; each single match is bounded, this bounds a batch. */
const MATCHING_SLICE_MS = 5;

/** `find_files`: files by glob or name fragment, from a walk of verified directories (see `walkFiles`). */
export function findFilesTool(confined: ConfinedRoot, options: ResolvedReadOnlyToolsOptions): Tool {
  return defineTool({
    name: 'find_files',
    description:
      'Find files inside the project root by name. A pattern with * ? [ ] or { } is a glob (matched against the path relative to the search directory when it contains a /, else against the file name); any other pattern matches file names that contain it, ignoring case.',
    effect: 'read',
    input: z.object({
      pattern: z.string().min(1).describe('A glob such as "**/*.test.ts", or a fragment of a file name such as "verdict".'),
      path: z.string().min(1).optional().describe('Directory to search, relative to the project root. Default: the whole root.'),
    }),
    target: (input) => input.path ?? '.',
    async execute(input, context) {
      const budget = new CallBudget({ timeMs: options.timeBudgetMs, bytes: options.byteBudget }, context.signal);
      // A bad glob is refused before the disk is touched.
      const matches = fileNameMatcher(input.pattern);
      const rootReal = await confined.real();
      const start = await confined.open(input.path ?? '.', 'directory');
      const searched = start.real;
      const { files, truncated } = await walkFiles(start, { rootReal, maxEntries: MAX_WALK_ENTRIES, budget });
      const found: string[] = [];
      let stoppedEarly = false;
      // The walk ends with a sort; matching starts on a fresh turn of the event loop.
      await nextTurn();
      let sliceStart = performance.now();
      for (const file of files) {
        if (performance.now() - sliceStart > MATCHING_SLICE_MS) {
          await nextTurn();
          if (!budget.ok()) break;
          sliceStart = performance.now();
        }
        if (!matches(path.relative(searched, file).split(path.sep).join('/'))) continue;
        if (found.length === MAX_FOUND_FILES) {
          stoppedEarly = true;
          break;
        }
        found.push(await confined.display(file));
      }
      const notes = [
        stoppedEarly ? `[stopped at ${MAX_FOUND_FILES} files; narrow the pattern or the path]` : undefined,
        truncated ? `[the directory tree was too large; searched only the first ${MAX_WALK_ENTRIES} entries]` : undefined,
        budget.note('search'),
      ].filter((note): note is string => note !== undefined);
      if (found.length === 0) return ['No files found.', ...notes].join('\n');
      return boundWithNotes(found.join('\n'), notes, options.maxOutputChars);
    },
  });
}

function fileNameMatcher(pattern: string): (relativePath: string) => boolean {
  if (isGlob(pattern)) {
    const compiled = compileGlob(pattern);
    const wholePath = pattern.includes('/');
    return (relativePath) => compiled(wholePath ? relativePath : path.posix.basename(relativePath));
  }
  const needle = pattern.toLowerCase();
  return (relativePath) => path.posix.basename(relativePath).toLowerCase().includes(needle);
}
