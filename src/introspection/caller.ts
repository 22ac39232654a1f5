import { getCurrentNode, getCurrentWorkflow } from '../core/ambient.js';
import type { Workflow } from '../core/workflow.js';
import type { WorkflowNode } from '../types/node.js';
import { findNode } from '../util/tree-walk.js';
import { IntrospectionError } from './introspection-error.js';

/** Where an introspection tool was called from, read from the ambient scope when it runs. */
export interface Caller {
  /** The workflow whose agent called the tool. */
  readonly workflow: Workflow;
  /** That workflow's root now: the tree the tool may see, and nothing outside it. */
  readonly root: Workflow;
  /** The node the tool runs in (its `toolCall` node, when called by an agent). */
  readonly node: WorkflowNode;
  /** The agent call that asked: the nearest `agentPrompt` node, else `node` itself. */
  readonly call: WorkflowNode;
}

/**
 * The caller of `toolName`, from the ambient scope: the tool loop runs each tool inside its own
 * `toolCall` node, whose parent is the `agentPrompt` node of the call.
 */
export function resolveCaller(toolName: string): Caller {
  const workflow = getCurrentWorkflow();
  const node = getCurrentNode();
  if (workflow === undefined || node === undefined) {
    throw new IntrospectionError(
      `${toolName} can only be used by an agent called inside a running workflow (a step, task or ` +
        'workflow body); this call is not part of any workflow tree.',
    );
  }
  let call: WorkflowNode = node;
  for (let n: WorkflowNode | null = node; n !== null; n = n.parent) {
    if (n.kind === 'agentPrompt') {
      call = n;
      break;
    }
  }
  return { workflow, root: workflow.root, node, call };
}

/** The node with this id in the caller's tree; any other id (unknown, or from another tree) is an error. */
export function findInRun(caller: Caller, nodeId: string): WorkflowNode {
  const found = findNode(caller.root.node, nodeId);
  if (found === undefined) {
    throw new IntrospectionError(
      `No node with id ${JSON.stringify(nodeId)} in this run's tree (root "${caller.root.name}", ` +
        `${caller.root.id}). Ids from other runs or workflows are not visible; use list_siblings_children ` +
        'or list_mount_points to find ids.',
    );
  }
  return found;
}
