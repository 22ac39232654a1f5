export type WorkflowStatus = 'idle' | 'running' | 'completed' | 'failed' | 'cancelled';

/** What a node in the tree stands for. Later layers (agents, tools) add their own kinds. */
export type NodeKind = 'workflow' | 'step' | 'task';

export function isFinished(status: WorkflowStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
