import type { TreeNode } from '../../core/tree-node.js';
import type { Workflow } from '../../core/workflow.js';

/**
 * Deterministic keys for what a durable run does: a workflow's path is its parent's path plus its
 * name and how many same-named children the parent had started before it; a step adds its name and
 * occurrence in that workflow; an agent call its agent and occurrence under the same node. The
 * same code with the same input yields the same keys, in this process or another.
 */
export class RunPaths {
  private readonly paths = new WeakMap<Workflow, string>();
  private readonly counters = new WeakMap<object, Map<string, number>>();
  private readonly nodeKeys = new WeakMap<TreeNode, string>();
  private readonly top = {};

  workflow(workflow: Workflow): string {
    let path = this.paths.get(workflow);
    if (path === undefined) {
      const parent = workflow.parent;
      const base = parent === null ? '' : this.workflow(parent);
      path = `${base}/${workflow.name}#${this.next(parent ?? this.top, workflow.name)}`;
      this.paths.set(workflow, path);
    }
    return path;
  }

  /** A new start of `workflow` (a child run again gets a new path). */
  started(workflow: Workflow): void {
    this.paths.delete(workflow);
    this.workflow(workflow);
  }

  step(workflow: Workflow, node: TreeNode): string {
    const key = `${this.workflow(workflow)}:${node.name}#${this.next(workflow, `step:${node.name}`)}`;
    this.nodeKeys.set(node, key);
    return key;
  }

  /** Where work under `node` is keyed: the step it is (or is in), else the workflow. */
  nodeKey(workflow: Workflow, node: TreeNode | null | undefined): string {
    for (let at = node; at !== null && at !== undefined; at = at.parent) {
      const key = this.nodeKeys.get(at);
      if (key !== undefined) return key;
      if (at === workflow.treeNode) break;
    }
    return this.workflow(workflow);
  }

  call(workflow: Workflow, mount: TreeNode | null | undefined, agentName: string): string {
    const base = this.nodeKey(workflow, mount);
    return `${base}/agent:${agentName}#${this.next(mount ?? workflow, `agent:${agentName}`)}`;
  }

  wait(name: string): number {
    return this.next(this.top, `wait:${name}`);
  }

  private next(owner: object, name: string): number {
    let counts = this.counters.get(owner);
    if (counts === undefined) this.counters.set(owner, (counts = new Map()));
    const n = counts.get(name) ?? 0;
    counts.set(name, n + 1);
    return n;
  }
}
