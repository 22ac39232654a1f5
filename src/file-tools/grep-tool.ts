import { z } from 'zod';
import { defineTool, type Tool } from '../tools/tool.js';
import { boundWithNotes, cutLine } from './bound-text.js';
import { CallBudget } from './call-budget.js';
import type { ConfinedRoot } from './confined-root.js';
import { lineMatcher, literalHits } from './line-matcher.js';
import { looksBinary, readUpTo } from './read-bytes.js';
import type { ResolvedReadOnlyToolsOptions } from './read-only-tools-options.js';
import { RegexSearcher } from './regex-searcher.js';
import type { WorkerHit } from './regex-worker-source.js';
import { openVerified, type VerifiedHandle } from './verified-open.js';
import { walkFiles } from './walk-files.js';

const MAX_GREP_MATCHES = 200;
const MAX_GREP_LINE_CHARS = 300;
/** Larger files are skipped by grep: they are almost always logs or data, and read_file pages through them. */
const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
const MAX_WALK_ENTRIES = 50_000;
const BINARY_SNIFF_BYTES = 8_192;

/**
 * `grep`: matching lines across the tree or in one file. Every file is opened and verified on its
 * own and read from that descriptor up to a size cap; the whole call runs under a time and byte
 * budget and stops on abort. A regular expression is vetted first and then run in a worker that
 * is terminated when the budget runs out, so no pattern can block the event loop.
 */
export function grepTool(confined: ConfinedRoot, options: ResolvedReadOnlyToolsOptions): Tool {
  return defineTool({
    name: 'grep',
    description: `Search text files inside the project root for a pattern and list matching lines as path:line: text. The pattern is literal unless regex is true. At most ${MAX_GREP_MATCHES} matches; .git and node_modules are skipped, and symlinks are not followed.`,
    effect: 'read',
    input: z.object({
      pattern: z.string().min(1).describe('Text to look for (literal), or a JavaScript regular expression when regex is true.'),
      path: z.string().min(1).optional().describe('File or directory to search, relative to the project root. Default: the whole root.'),
      regex: z.boolean().optional().describe('Treat pattern as a regular expression. Default false.'),
      ignoreCase: z.boolean().optional().describe('Match without regard to case. Default false.'),
    }),
    target: (input) => input.path ?? '.',
    async execute(input, context) {
      const budget = new CallBudget({ timeMs: options.timeBudgetMs, bytes: options.byteBudget }, context.signal);
      const matcher = lineMatcher(input.pattern, input.regex ?? false, input.ignoreCase ?? false);
      const rootReal = await confined.real();
      const target = await confined.open(input.path ?? '.', 'file-or-directory');
      const { files, truncated } = target.stats.isDirectory()
        ? await walkFiles(target, { rootReal, maxEntries: MAX_WALK_ENTRIES, budget })
        : { files: [target], truncated: false };
      const matches: string[] = [];
      let stoppedEarly = false;
      let skippedLarge = 0;
      let searcher: RegexSearcher | undefined;
      try {
        if (matcher.kind === 'regex') searcher = new RegexSearcher(matcher.source, matcher.flags);
        for (const file of files) {
          if (!budget.ok()) break;
          const text = await readSearchable(file, rootReal, budget);
          if (text === 'too-large') skippedLarge += 1;
          if (typeof text !== 'object') continue;
          const limit = MAX_GREP_MATCHES - matches.length + 1;
          const hits: WorkerHit[] | undefined =
            matcher.kind === 'literal'
              ? literalHits(text.text, matcher.needle, matcher.ignoreCase, limit, MAX_GREP_LINE_CHARS)
              : await searcher?.search({ text: text.text, limit, headChars: MAX_GREP_LINE_CHARS }, budget);
          if (hits === undefined) break; // the time budget ran out inside the match
          const shown = await confined.display(text.real);
          for (const hit of hits) {
            if (matches.length === MAX_GREP_MATCHES) {
              stoppedEarly = true;
              break;
            }
            matches.push(`${shown}:${hit.line}: ${cutLine(hit.head, hit.length, MAX_GREP_LINE_CHARS, true)}`);
          }
          if (stoppedEarly) break;
        }
      } finally {
        await searcher?.close();
        // A single-file target was opened above; close it if the loop never reached it.
        if (!target.stats.isDirectory()) await target.handle.close().catch(() => undefined);
      }
      const notes = [
        stoppedEarly ? `[stopped at ${MAX_GREP_MATCHES} matches; narrow the pattern or the path]` : undefined,
        truncated ? `[the directory tree was too large; searched only the first ${MAX_WALK_ENTRIES} entries]` : undefined,
        skippedLarge > 0 ? `[skipped ${skippedLarge} file${skippedLarge === 1 ? '' : 's'} over ${MAX_GREP_FILE_BYTES} bytes; page through them with read_file]` : undefined,
        budget.note('search'),
      ].filter((note): note is string => note !== undefined);
      if (matches.length === 0) return ['No matches.', ...notes].join('\n');
      return boundWithNotes(matches.join('\n'), notes, options.maxOutputChars);
    },
  });
}

/**
 * The text of one file to search, or why it is skipped. A path from the walk is opened and verified
 * here (it may have changed since it was listed); a handle is the already verified target.
 */
async function readSearchable(
  file: string | VerifiedHandle,
  rootReal: string,
  budget: CallBudget,
): Promise<{ text: string; real: string } | 'too-large' | 'skipped'> {
  let opened: VerifiedHandle;
  if (typeof file === 'string') {
    try {
      opened = await openVerified(file, rootReal, 'file', file);
    } catch {
      return 'skipped'; // vanished, swapped, or no longer a regular file
    }
  } else opened = file;
  try {
    if (opened.stats.size > MAX_GREP_FILE_BYTES) return 'too-large';
    const bytes = await readUpTo(opened.handle, MAX_GREP_FILE_BYTES, budget);
    if (looksBinary(bytes.subarray(0, BINARY_SNIFF_BYTES))) return 'skipped';
    return { text: bytes.toString('utf8'), real: opened.real };
  } finally {
    await opened.handle.close().catch(() => undefined);
  }
}
