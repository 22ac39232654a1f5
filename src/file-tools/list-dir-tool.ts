import { z } from 'zod';
import { GroundswellError } from '../errors/groundswell-error.js';
import { defineTool, type Tool } from '../tools/tool.js';
import { errorMessage } from '../util/describe.js';
import { boundWithNotes } from './bound-text.js';
import { CallBudget } from './call-budget.js';
import type { ConfinedRoot } from './confined-root.js';
import { ReadOnlyToolError } from './errors.js';
import { listDirectory } from './list-directory.js';
import type { ResolvedReadOnlyToolsOptions } from './read-only-tools-options.js';

const MAX_LISTED_ENTRIES = 1_000;
/** Entries read (and sorted) at most; a directory with more is listed in part, and says so. */
const MAX_READ_ENTRIES = 50_000;

/** `list_dir`: one verified directory, listed through its descriptor (see `listDirectory`). */
export function listDirTool(confined: ConfinedRoot, options: ResolvedReadOnlyToolsOptions): Tool {
  return defineTool({
    name: 'list_dir',
    description: 'List one directory inside the project root. Directories end with "/", symlinks with "@"; everything else is a file.',
    effect: 'read',
    input: z.object({
      path: z.string().min(1).optional().describe('Directory to list, relative to the project root. Default: the root.'),
    }),
    target: (input) => input.path ?? '.',
    async execute(input, context) {
      const budget = new CallBudget({ timeMs: options.timeBudgetMs, bytes: options.byteBudget }, context.signal);
      const directory = await confined.open(input.path ?? '.', 'directory');
      let listing;
      try {
        listing = await listDirectory(directory, MAX_READ_ENTRIES, budget);
      } catch (error) {
        if (error instanceof GroundswellError || budget.signal?.aborted === true) throw error;
        throw new ReadOnlyToolError(`"${input.path ?? '.'}" cannot be listed (${errorMessage(error)}).`, { cause: error });
      } finally {
        await directory.handle.close().catch(() => undefined);
      }
      const { entries, complete } = listing;
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      if (entries.length === 0 && complete) return '(empty directory)';
      const shown = entries
        .slice(0, MAX_LISTED_ENTRIES)
        .map((entry) => (entry.isSymbolicLink() ? `${entry.name}@` : entry.isDirectory() ? `${entry.name}/` : entry.name));
      const notes: string[] = [];
      if (entries.length > MAX_LISTED_ENTRIES) notes.push(`[${entries.length - MAX_LISTED_ENTRIES}${complete ? '' : '+'} more entries not shown]`);
      if (!complete) notes.push(budget.note('listing') ?? `[listing stopped after ${MAX_READ_ENTRIES} entries; the order above is of those only]`);
      return boundWithNotes(shown.join('\n'), notes, options.maxOutputChars);
    },
  });
}
