import { createReadStream } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { UsageError } from '../errors/groundswell-error.js';
import { defineTool, type Tool } from '../tools/tool.js';
import { boundLine, boundText } from './bound-text.js';
import { ConfinedRoot } from './confined-root.js';
import { ReadOnlyToolError } from './errors.js';
import { globToRegExp, isGlob } from './glob-pattern.js';
import { walkFiles } from './walk-files.js';

export interface ReadOnlyToolsOptions {
  /** Upper bound on any one tool result, in characters; longer results are cut with a marker. Default 20 000. */
  readonly maxOutputChars?: number;
}

/** Defaults sized so one result fits comfortably in a judge's context next to the plan file. */
const DEFAULT_MAX_OUTPUT_CHARS = 20_000;
const DEFAULT_READ_LINES = 2_000;
const MAX_LINE_CHARS = 2_000;
const MAX_GREP_MATCHES = 200;
const MAX_GREP_LINE_CHARS = 300;
/** Larger files are skipped by grep: they are almost always logs or data, and read_file pages through them. */
const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
const MAX_FOUND_FILES = 500;
const MAX_LISTED_ENTRIES = 1_000;
const MAX_WALK_ENTRIES = 50_000;
const BINARY_SNIFF_BYTES = 8_192;

/**
 * The judge's whole toolset: `read_file`, `grep`, `find_files` and `list_dir`, each `effect: 'read'`
 * and confined to `root`. There is deliberately no write or exec tool, so a judge cannot change the
 * evidence it is checking or re-run the work. Every path is resolved with `fs.realpath` and refused
 * when it leaves the root by `..`, by an absolute path, or through a symlink; refusals are thrown so
 * the agent loop reports them as `is_error` results.
 */
export function readOnlyTools(root: string, options: ReadOnlyToolsOptions = {}): Tool[] {
  const maxOutputChars = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  if (!Number.isInteger(maxOutputChars) || maxOutputChars < 200) {
    throw new UsageError(`readOnlyTools: maxOutputChars must be an integer of at least 200, got ${String(maxOutputChars)}.`);
  }
  const confined = new ConfinedRoot(root);
  const bound = (text: string): string => boundText(text, maxOutputChars);
  return [readFileTool(confined, maxOutputChars), grepTool(confined, bound), findFilesTool(confined, bound), listDirTool(confined, bound)];
}

type Bound = (text: string) => string;

function readFileTool(confined: ConfinedRoot, maxOutputChars: number): Tool {
  return defineTool({
    name: 'read_file',
    description:
      'Read a text file inside the project root. Lines come back numbered. Use offset (1-based first line) and limit (line count) to page through a long file.',
    effect: 'read',
    input: z.object({
      path: z.string().min(1).describe('File path, relative to the project root.'),
      offset: z.number().int().min(1).optional().describe('First line to return, counting from 1. Default 1.'),
      limit: z.number().int().min(1).optional().describe(`How many lines to return. Default ${DEFAULT_READ_LINES}.`),
    }),
    target: (input) => input.path,
    async execute(input) {
      const real = await confined.resolve(input.path);
      await expectFile(real, input.path);
      if (await looksBinary(real)) throw new ReadOnlyToolError(`"${input.path}" is a binary file; read_file only shows text.`);
      const first = input.offset ?? 1;
      const last = first + (input.limit ?? DEFAULT_READ_LINES) - 1;
      const lines: string[] = [];
      // Room is kept for the paging hint, so a cut result still tells the model where to resume.
      const budget = maxOutputChars - 100;
      let used = 0;
      let lineNumber = 0;
      let nextOffset: number | undefined;
      // Streaming stops at the last wanted line, so paging a huge log never loads all of it.
      const reader = createInterface({ input: createReadStream(real, { encoding: 'utf8' }), crlfDelay: Infinity });
      try {
        for await (const line of reader) {
          lineNumber += 1;
          if (lineNumber > last) {
            nextOffset = lineNumber;
            break;
          }
          if (lineNumber < first) continue;
          const numbered = `${lineNumber}\t${boundLine(line, MAX_LINE_CHARS)}`;
          if (lines.length > 0 && used + numbered.length + 1 > budget) {
            nextOffset = lineNumber;
            break;
          }
          lines.push(numbered);
          used += numbered.length + 1;
        }
      } finally {
        reader.close();
      }
      if (lines.length === 0) return lineNumber === 0 ? `(${input.path} is empty)` : `(${input.path} has only ${lineNumber} lines)`;
      const tail = nextOffset === undefined ? '' : `\n[more lines follow: continue with offset ${nextOffset}]`;
      return boundText(lines.join('\n'), budget) + tail;
    },
  });
}

function grepTool(confined: ConfinedRoot, bound: Bound): Tool {
  return defineTool({
    name: 'grep',
    description:
      `Search text files inside the project root for a pattern and list matching lines as path:line: text. The pattern is literal unless regex is true. At most ${MAX_GREP_MATCHES} matches; .git and node_modules are skipped, and symlinks are not followed.`,
    effect: 'read',
    input: z.object({
      pattern: z.string().min(1).describe('Text to look for (literal), or a JavaScript regular expression when regex is true.'),
      path: z.string().min(1).optional().describe('File or directory to search, relative to the project root. Default: the whole root.'),
      regex: z.boolean().optional().describe('Treat pattern as a regular expression. Default false.'),
      ignoreCase: z.boolean().optional().describe('Match without regard to case. Default false.'),
    }),
    target: (input) => input.path ?? '.',
    async execute(input, context) {
      const matcher = lineMatcher(input.pattern, input.regex ?? false, input.ignoreCase ?? false);
      const real = await confined.resolve(input.path ?? '.');
      const info = await stat(real);
      const { files, truncated } = info.isDirectory()
        ? await walkFiles(real, { maxEntries: MAX_WALK_ENTRIES, signal: context.signal })
        : { files: [real], truncated: false };
      const matches: string[] = [];
      let stoppedEarly = false;
      for (const file of files) {
        context.signal?.throwIfAborted();
        const size = (await stat(file)).size;
        if (size > MAX_GREP_FILE_BYTES || (await looksBinary(file))) continue;
        const shown = await confined.display(file);
        const lines = (await readFile(file, 'utf8')).split(/\r?\n/);
        for (let i = 0; i < lines.length; i += 1) {
          const line = lines[i] ?? '';
          if (!matcher(line)) continue;
          if (matches.length === MAX_GREP_MATCHES) {
            stoppedEarly = true;
            break;
          }
          matches.push(`${shown}:${i + 1}: ${boundLine(line, MAX_GREP_LINE_CHARS)}`);
        }
        if (stoppedEarly) break;
      }
      const notes = [
        stoppedEarly ? `[stopped at ${MAX_GREP_MATCHES} matches; narrow the pattern or the path]` : '',
        truncated ? `[the directory tree was too large; searched only the first ${MAX_WALK_ENTRIES} entries]` : '',
      ].filter((note) => note !== '');
      if (matches.length === 0) return ['No matches.', ...notes].join('\n');
      return bound([...matches, ...notes].join('\n'));
    },
  });
}

function findFilesTool(confined: ConfinedRoot, bound: Bound): Tool {
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
      const real = await confined.resolve(input.path ?? '.');
      await expectDirectory(real, input.path ?? '.');
      const matches = fileNameMatcher(input.pattern);
      const { files, truncated } = await walkFiles(real, { maxEntries: MAX_WALK_ENTRIES, signal: context.signal });
      const found: string[] = [];
      let stoppedEarly = false;
      for (const file of files) {
        const relativeToSearch = path.relative(real, file).split(path.sep).join('/');
        if (!matches(relativeToSearch)) continue;
        if (found.length === MAX_FOUND_FILES) {
          stoppedEarly = true;
          break;
        }
        found.push(await confined.display(file));
      }
      const notes = [
        stoppedEarly ? `[stopped at ${MAX_FOUND_FILES} files; narrow the pattern or the path]` : '',
        truncated ? `[the directory tree was too large; searched only the first ${MAX_WALK_ENTRIES} entries]` : '',
      ].filter((note) => note !== '');
      if (found.length === 0) return ['No files found.', ...notes].join('\n');
      return bound([...found, ...notes].join('\n'));
    },
  });
}

function listDirTool(confined: ConfinedRoot, bound: Bound): Tool {
  return defineTool({
    name: 'list_dir',
    description:
      'List one directory inside the project root. Directories end with "/", symlinks with "@"; everything else is a file.',
    effect: 'read',
    input: z.object({
      path: z.string().min(1).optional().describe('Directory to list, relative to the project root. Default: the root.'),
    }),
    target: (input) => input.path ?? '.',
    async execute(input) {
      const real = await confined.resolve(input.path ?? '.');
      await expectDirectory(real, input.path ?? '.');
      const entries = await readdir(real, { withFileTypes: true });
      entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
      if (entries.length === 0) return '(empty directory)';
      const shown = entries
        .slice(0, MAX_LISTED_ENTRIES)
        .map((entry) => (entry.isSymbolicLink() ? `${entry.name}@` : entry.isDirectory() ? `${entry.name}/` : entry.name));
      if (entries.length > MAX_LISTED_ENTRIES) shown.push(`[${entries.length - MAX_LISTED_ENTRIES} more entries not shown]`);
      return bound(shown.join('\n'));
    },
  });
}

function lineMatcher(pattern: string, regex: boolean, ignoreCase: boolean): (line: string) => boolean {
  if (!regex) {
    const needle = ignoreCase ? pattern.toLowerCase() : pattern;
    return ignoreCase ? (line) => line.toLowerCase().includes(needle) : (line) => line.includes(needle);
  }
  let compiled: RegExp;
  try {
    compiled = new RegExp(pattern, ignoreCase ? 'i' : '');
  } catch (error) {
    throw new ReadOnlyToolError(`The pattern is not a valid regular expression: ${error instanceof Error ? error.message : String(error)}.`, { cause: error });
  }
  return (line) => compiled.test(line);
}

function fileNameMatcher(pattern: string): (relativePath: string) => boolean {
  if (isGlob(pattern)) {
    const compiled = globToRegExp(pattern);
    const wholePath = pattern.includes('/');
    return (relativePath) => compiled.test(wholePath ? relativePath : path.posix.basename(relativePath));
  }
  const needle = pattern.toLowerCase();
  return (relativePath) => path.posix.basename(relativePath).toLowerCase().includes(needle);
}

async function expectFile(real: string, requested: string): Promise<void> {
  const info = await stat(real);
  if (info.isDirectory()) throw new ReadOnlyToolError(`"${requested}" is a directory; use list_dir or find_files.`);
  if (!info.isFile()) throw new ReadOnlyToolError(`"${requested}" is not a regular file.`);
}

async function expectDirectory(real: string, requested: string): Promise<void> {
  if (!(await stat(real)).isDirectory()) throw new ReadOnlyToolError(`"${requested}" is not a directory.`);
}

/** A NUL byte in the first few kilobytes is the usual sign of a binary file, whose bytes would only waste the judge's context. */
async function looksBinary(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const buffer = Buffer.alloc(BINARY_SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, BINARY_SNIFF_BYTES, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}
