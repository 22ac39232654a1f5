import type { Attributes, SpanKind } from '@opentelemetry/api';
import type { AgentPromptStartEvent, WorkflowEvent } from '../types/events.js';
import type { WorkflowNode } from '../types/node.js';
import { providerAttributes } from './gen-ai-attributes.js';
import type { OtelApi } from './load-otel-api.js';

/** What a node's span starts with: its name, kind and the attributes known at its start. */
export interface SpanStart {
  readonly name: string;
  readonly kind: SpanKind;
  readonly attributes: Attributes;
}

/**
 * The span of a node, by kind: `workflow <name>`, `step <name>`, `task <name>`,
 * `invoke_agent <agent>`, `execute_tool <tool>`, `reflection <name>`. `event` is the event that
 * started it when there is one; a node met later (an observer attached mid-run) is read from
 * the node itself.
 */
export function spanStart(api: OtelApi, node: WorkflowNode, event: WorkflowEvent | undefined, captureContent: boolean): SpanStart {
  const attributes: Attributes = {
    'groundswell.node.id': node.id,
    'groundswell.node.kind': node.kind,
    'groundswell.workflow.id': node.workflowId,
  };
  const internal = api.SpanKind.INTERNAL;
  switch (node.kind) {
    case 'agentPrompt': {
      const start = event?.type === 'agentPromptStart' ? event : promptStartOf(node);
      // The node's name holds the prompt's name, which defaults to the start of the user text.
      if (captureContent) attributes['groundswell.prompt.name'] = node.name;
      if (start === undefined) return { name: 'invoke_agent', kind: internal, attributes: { ...attributes, 'gen_ai.operation.name': 'invoke_agent', ...providerAttributes(undefined) } };
      Object.assign(attributes, {
        'gen_ai.operation.name': 'invoke_agent',
        ...providerAttributes(start.provider),
        'gen_ai.agent.name': start.agentName,
        'gen_ai.request.model': start.model,
        'groundswell.prompt.id': start.promptId,
      });
      return { name: `invoke_agent ${start.agentName}`, kind: internal, attributes };
    }
    case 'toolCall':
    case 'mcpCall':
      Object.assign(attributes, {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': node.name,
        // MCP tools come from a server the agent connects to: the conventions' `extension`.
        'gen_ai.tool.type': node.kind === 'mcpCall' ? 'extension' : 'function',
      });
      return { name: `execute_tool ${node.name}`, kind: internal, attributes };
    case 'task':
      if (event?.type === 'taskStart') attributes['groundswell.task.concurrent'] = event.concurrent;
      return { name: `task ${node.name}`, kind: internal, attributes };
    default:
      return { name: `${node.kind} ${node.name}`, kind: internal, attributes };
  }
}

function promptStartOf(node: WorkflowNode): AgentPromptStartEvent | undefined {
  for (const event of node.events) if (event.type === 'agentPromptStart') return event;
  return undefined;
}
