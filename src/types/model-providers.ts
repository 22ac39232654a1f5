/**
 * A model provider as the AI SDK's provider packages export one: `createOpenAICompatible({...})`,
 * `openai`, `anthropic`, `createOllama()` or a `customProvider({...})`. Called with a model id (or
 * asked for `languageModel(id)`), it gives a language model object.
 */
export type ModelProvider = ((modelId: string) => unknown) | { languageModel(modelId: string): unknown };

/**
 * Providers by the name a model string starts with: with `{ ollama: createOpenAICompatible(...) }`
 * registered, `model: 'ollama/llama3.2'` runs `llama3.2` on that provider.
 */
export type ModelProviders = Readonly<Record<string, ModelProvider>>;
