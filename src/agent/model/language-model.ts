/**
 * A language model of the AI SDK provider specification (v2 and v3: AI SDK 5 and 6; v4: AI SDK 7,
 * which reads the same in every part used here), typed by the parts
 * groundswell uses, so `import 'groundswell'` needs neither `ai` nor a provider package: any
 * provider's model object (`openai('gpt-5')`, `createOpenAICompatible(...).chatModel(id)`) fits.
 */
export interface LanguageModelLike {
  readonly specificationVersion: 'v2' | 'v3' | 'v4';
  /** The provider's id, such as `openai.chat` or `corp.gateway.chat` (`createOpenAICompatible({ name })` adds `.chat`). */
  readonly provider: string;
  readonly modelId: string;
  doGenerate(options: ProviderCallOptions): PromiseLike<ProviderGenerateResult>;
  doStream(options: ProviderCallOptions): PromiseLike<{ stream: ReadableStream<ProviderStreamPart> }>;
}

/** The call options groundswell sends (a subset both spec versions accept). */
export interface ProviderCallOptions {
  prompt: ProviderMessage[];
  maxOutputTokens?: number;
  temperature?: number;
  stopSequences?: string[];
  responseFormat?: { type: 'text' } | { type: 'json'; schema?: Record<string, unknown>; name?: string; description?: string };
  tools?: Array<{ type: 'function'; name: string; description?: string; inputSchema: Record<string, unknown> }>;
  toolChoice?: { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; toolName: string };
  abortSignal?: AbortSignal;
}

export type ProviderMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: Array<{ type: 'text'; text: string }> }
  | {
      role: 'assistant';
      content: Array<{ type: 'text'; text: string } | { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown }>;
    }
  | {
      role: 'tool';
      content: Array<{
        type: 'tool-result';
        toolCallId: string;
        toolName: string;
        output: { type: 'text'; value: string } | { type: 'error-text'; value: string };
      }>;
    };

/** What a generate call answers, read loosely: the usage and finish reason differ between v2 and v3. */
export interface ProviderGenerateResult {
  readonly content: ReadonlyArray<ProviderContent>;
  readonly finishReason: unknown;
  readonly usage: unknown;
  readonly warnings?: ReadonlyArray<unknown>;
  readonly response?: { readonly id?: string; readonly modelId?: string };
}

export interface ProviderContent {
  readonly type: string;
  readonly text?: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  /** A tool call's input: its arguments as a JSON string. */
  readonly input?: string;
}

export interface ProviderStreamPart {
  readonly type: string;
  readonly delta?: string;
  readonly toolCallId?: string;
  readonly toolName?: string;
  readonly input?: string;
  readonly finishReason?: unknown;
  readonly usage?: unknown;
  readonly warnings?: ReadonlyArray<unknown>;
  readonly modelId?: string;
  readonly id?: string;
  readonly error?: unknown;
}

/** True for a provider model object (what `model` may be besides an Anthropic model id). */
export function isLanguageModel(value: unknown): value is LanguageModelLike {
  if (typeof value !== 'object' || value === null) return false;
  const model = value as Partial<LanguageModelLike>;
  return (
    (model.specificationVersion === 'v2' || model.specificationVersion === 'v3' || model.specificationVersion === 'v4') &&
    typeof model.modelId === 'string' &&
    typeof model.provider === 'string' &&
    typeof model.doGenerate === 'function' &&
    typeof model.doStream === 'function'
  );
}
