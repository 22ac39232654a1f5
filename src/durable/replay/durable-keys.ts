import type { WorkflowNode } from '../../types/node.js';

/**
 * The journal key of each workflow, step and agent call of an exported tree, rebuilt by the rules
 * durable runs key them by (see RunPaths): a workflow is its parent workflow's key plus its name
 * and occurrence; a step adds its name and occurrence in its workflow; an agent call adds its
 * agent and occurrence under its node, keyed below the nearest step. Tree order is start order,
 * so the counts come out as the run counted them. A key that does not rebuild (a workflow started
 * again) simply matches no record, and the caller reads the tree instead.
 */
export function durableKeys(root: WorkflowNode): Map<WorkflowNode, string> {
  const keys = new Map<WorkflowNode, string>();
  const counters = new Map<WorkflowNode | null, Map<string, number>>();
  const next = (owner: WorkflowNode | null, name: string): number => {
    let counts = counters.get(owner);
    if (counts === undefined) counters.set(owner, (counts = new Map()));
    const n = counts.get(name) ?? 0;
    counts.set(name, n + 1);
    return n;
  };
  const stack: WorkflowNode[] = [root];
  while (stack.length > 0) {
    const node = stack.pop() as WorkflowNode;
    const workflow = owningWorkflow(node);
    if (node.kind === 'workflow') {
      keys.set(node, `${workflow === null ? '' : (keys.get(workflow) ?? '')}/${node.name}#${next(workflow, node.name)}`);
    } else if (node.kind === 'step' && workflow !== null) {
      keys.set(node, `${keys.get(workflow) ?? ''}:${node.name}#${next(workflow, `step:${node.name}`)}`);
    } else if (node.kind === 'agentPrompt' && node.parent !== null) {
      const agent = agentName(node);
      if (agent !== undefined) keys.set(node, `${baseKey(node.parent, keys)}/agent:${agent}#${next(node.parent, `agent:${agent}`)}`);
    }
    for (let i = node.children.length - 1; i >= 0; i -= 1) stack.push(node.children[i] as WorkflowNode);
  }
  return keys;
}

/** The nearest workflow above `node` (not `node` itself). */
function owningWorkflow(node: WorkflowNode): WorkflowNode | null {
  for (let at = node.parent; at !== null; at = at.parent) if (at.kind === 'workflow') return at;
  return null;
}

/** Where work under `mount` is keyed: the step it is or is in, else its workflow. */
function baseKey(mount: WorkflowNode, keys: ReadonlyMap<WorkflowNode, string>): string {
  for (let at: WorkflowNode | null = mount; at !== null; at = at.parent) {
    if (at.kind === 'step' || at.kind === 'workflow') return keys.get(at) ?? '';
  }
  return '';
}

export function agentName(node: WorkflowNode): string | undefined {
  for (const event of node.events) if (event.type === 'agentPromptStart') return event.agentName;
  return undefined;
}
