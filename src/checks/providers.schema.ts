import { record } from './collections.js';
import { expected } from './leaf.js';
import type { ModelProvider } from '../types/model-providers.js';

const provider = expected<ModelProvider>(
  'an AI SDK provider (a function of the model id, or an object with languageModel(id), e.g. createOpenAICompatible({...}))',
  (v) => typeof v === 'function' || (typeof v === 'object' && v !== null && typeof (v as { languageModel?: unknown }).languageModel === 'function'),
);

/** `providers` on workflows, agents, the judge and the plan drafter. */
export const providersSchema = record(provider, "an object mapping provider names to AI SDK providers, like { ollama: createOpenAICompatible({ name: 'ollama', baseURL }) }");
