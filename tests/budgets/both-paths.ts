import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { BudgetUsageUnreliableEvent, SerializedBudget, Workflow, WorkflowEvent } from 'groundswell';
import { serveChatCompletions, type ChatCompletionsServer, type ScriptedModel } from 'groundswell/testing';
import type { AgentModel } from '../support/model-path.js';

/** The model id both paths ask for, so one price and one script serve both. */
export const MODEL_ID = 'budget-model';

/** One way an agent reaches a scripted model; the script's `requests` are what its server received. */
export interface ModelPath {
  readonly name: string;
  /** Spread into `createAgent`; `includeUsage` is the provider's streamed-usage switch (default on). */
  agentModel(script: ScriptedModel, options?: { includeUsage?: boolean }): Promise<AgentModel>;
}

const servers: ChatCompletionsServer[] = [];

/** The Anthropic SDK client on the script's fetch. */
export const ANTHROPIC_PATH: ModelPath = {
  name: 'Anthropic SDK',
  agentModel: (script) => Promise.resolve({ client: script.client(), model: MODEL_ID }),
};

/** `@ai-sdk/openai-compatible` against the loopback Chat Completions stand-in answering from the script. */
export const PROVIDER_PATH: ModelPath = {
  name: 'AI SDK provider',
  async agentModel(script, options = {}) {
    const server = await serveChatCompletions(script);
    servers.push(server);
    const provider = createOpenAICompatible({ name: 'local', baseURL: server.baseURL, supportsStructuredOutputs: true, includeUsage: options.includeUsage ?? true });
    return { model: provider.chatModel(MODEL_ID) };
  },
};

export const BOTH_PATHS: readonly ModelPath[] = [ANTHROPIC_PATH, PROVIDER_PATH];

/** Closes the stand-ins the provider path started (call after each test). */
export async function closeServers(): Promise<void> {
  await Promise.all(servers.splice(0).map((server) => server.close()));
}

/** Every event the workflow emits, in order. */
export function eventsOf(workflow: Workflow): WorkflowEvent[] {
  const events: WorkflowEvent[] = [];
  workflow.addObserver({ onEvent: (event) => events.push(event) });
  return events;
}

export function usageEvents(events: readonly WorkflowEvent[]): BudgetUsageUnreliableEvent[] {
  return events.filter((event): event is BudgetUsageUnreliableEvent => event.type === 'budgetUsageUnreliable');
}

/** The first budget set on the workflow's root, as it stands. */
export function rootBudget(workflow: Workflow): SerializedBudget {
  const budget = workflow.node.toJSON().budgets?.[0];
  if (budget === undefined) throw new Error('the workflow has no budget');
  return budget;
}
