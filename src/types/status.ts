export type WorkflowStatus = 'idle' | 'running' | 'completed' | 'failed' | 'cancelled';

/** What a node in the tree stands for. */
export type NodeKind = 'workflow' | 'step' | 'task' | 'agentPrompt' | 'toolCall' | 'mcpCall' | 'reflection';

export function isFinished(status: WorkflowStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled';
}
