import type { Tool } from '../tools/tool.js';
import { ConfinedRoot } from './confined-root.js';
import { findFilesTool } from './find-files-tool.js';
import { grepTool } from './grep-tool.js';
import { listDirTool } from './list-dir-tool.js';
import { readFileTool } from './read-file-tool.js';
import { resolveReadOnlyToolsOptions, type ReadOnlyToolsOptions } from './read-only-tools-options.js';

export type { ReadOnlyToolsOptions } from './read-only-tools-options.js';

/**
 * The judge's whole toolset: `read_file`, `grep`, `find_files` and `list_dir`, each `effect: 'read'`
 * and confined to `root`. There is deliberately no write or exec tool, so a judge cannot change the
 * evidence it is checking or re-run the work.
 *
 * Confinement holds against races: a path is checked as written and after `realpath`, then opened
 * (never following a final symlink, never blocking on a FIFO) and the opened descriptor itself is
 * verified to lie inside the root; only regular files are read and only directories listed. Every
 * call runs under a time and byte budget and stops on abort; globs are matched in linear time and
 * regular expressions that can backtrack exponentially are refused, the rest run in a worker that
 * is stopped at the budget. Refusals are thrown so the agent loop reports them as `is_error` results.
 *
 * @throws UsageError when `root` is not a non-empty string or `options` has an unknown key or a
 *   number out of range.
 */
export function readOnlyTools(root: string, options: ReadOnlyToolsOptions = {}): Tool[] {
  const resolved = resolveReadOnlyToolsOptions(root, options);
  const confined = new ConfinedRoot(root);
  return [readFileTool(confined, resolved), grepTool(confined, resolved), findFilesTool(confined, resolved), listDirTool(confined, resolved)];
}
