import type { LogEntry } from '../types/logging.js';
import type { WorkflowNode } from '../types/node.js';
import { walkTree } from '../util/tree-walk.js';

/** Every log entry of the subtree, oldest first, each with the path of node names it came from. */
export function renderLogs(root: WorkflowNode): string {
  const names = new Map<string, string>();
  const entries: LogEntry[] = [];
  for (const node of walkTree(root)) {
    const parentName = node.parent ? names.get(node.parent.id) : undefined;
    names.set(node.id, parentName !== undefined && node !== root ? `${parentName}/${node.name}` : node.name);
    entries.push(...node.logs);
  }
  entries.sort((a, b) => a.timestamp - b.timestamp);
  return entries
    .map((entry) => {
      const time = new Date(entry.timestamp).toISOString();
      const data = entry.data === undefined ? '' : ` ${JSON.stringify(entry.data)}`;
      return `${time} ${entry.level.toUpperCase().padEnd(5)} ${names.get(entry.nodeId) ?? entry.nodeId}: ${entry.message}${data}`;
    })
    .join('\n');
}
