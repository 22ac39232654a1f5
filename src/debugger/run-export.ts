import { GroundswellError } from '../errors/groundswell-error.js';
import type { WorkflowNode } from '../types/node.js';
import type { RunExport, SerializedNode } from '../types/serialized.js';

/** An export could not be read: not JSON, another format, or a version this build cannot load. */
export class RunExportError extends GroundswellError {}

/**
 * The whole subtree of `node` as JSON-safe data (redaction was applied when state was captured).
 * Each node's events are in the order they happened (timestamp, then id), not the order they
 * reached this process as live observers saw them: events relayed from workers (DBOS) arrive
 * late. Ids are kept as given, so they may not ascend within a node.
 */
export function exportRun(node: WorkflowNode, exportedAt: number = Date.now()): RunExport {
  return { format: 'groundswell.run', version: 1, exportedAt, root: node.toJSON() };
}

/** Parses and checks an export (object or JSON text), with errors that name what is wrong. */
export function parseRunExport(input: RunExport | string): RunExport {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (cause) {
      throw new RunExportError('Run export is not valid JSON.', { cause });
    }
  }
  const run = value as Partial<RunExport> | null;
  if (typeof run !== 'object' || run === null || run.format !== 'groundswell.run') {
    throw new RunExportError('Not a groundswell run export: expected format "groundswell.run".');
  }
  if (run.version !== 1) {
    throw new RunExportError(`Unsupported run export version ${String(run.version)}; this build reads version 1.`);
  }
  checkNode(run.root, 'root');
  return run as RunExport;
}

function checkNode(node: unknown, path: string): asserts node is SerializedNode {
  const stack: Array<[unknown, string]> = [[node, path]];
  while (stack.length > 0) {
    const [current, where] = stack.pop() as [unknown, string];
    const n = current as Partial<SerializedNode> | null;
    if (typeof n !== 'object' || n === null) throw new RunExportError(`Run export: ${where} is not a node object.`);
    for (const key of ['id', 'name', 'kind', 'status'] as const) {
      if (typeof n[key] !== 'string') throw new RunExportError(`Run export: ${where}.${key} must be a string.`);
    }
    for (const key of ['children', 'events', 'logs'] as const) {
      if (!Array.isArray(n[key])) throw new RunExportError(`Run export: ${where}.${key} must be an array.`);
    }
    (n.children as unknown[]).forEach((child, i) => stack.push([child, `${where}.children[${i}]`]));
  }
}
