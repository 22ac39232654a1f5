/** `suspended`: a durable run stopped to wait for a signal (not a failure; it resumes). */
export type WorkflowStatus = 'idle' | 'running' | 'completed' | 'failed' | 'cancelled' | 'suspended';

/** What a node in the tree stands for. */
export type NodeKind = 'workflow' | 'step' | 'task' | 'agentPrompt' | 'toolCall' | 'mcpCall' | 'reflection';

export function isFinished(status: WorkflowStatus): boolean {
  return status === 'completed' || status === 'failed' || status === 'cancelled' || status === 'suspended';
}
