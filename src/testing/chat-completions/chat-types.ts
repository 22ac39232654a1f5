// The Chat Completions wire shapes the stand-in writes, written out here rather than imported:
// the testing entry speaks plain HTTP and depends on no OpenAI or AI SDK package.

export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ChatToolCall {
  readonly id: string;
  readonly type: 'function';
  readonly function: { readonly name: string; readonly arguments: string };
}

export interface ChatUsage {
  /** Every input token, cached or not (the Messages API counts cache reads and writes apart). */
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly prompt_tokens_details: { readonly cached_tokens: number };
  readonly completion_tokens_details?: { readonly reasoning_tokens: number };
}

export interface ChatCompletion {
  readonly id: string;
  readonly object: 'chat.completion';
  /** Unix seconds. */
  readonly created: number;
  readonly model: string;
  readonly choices: readonly [
    {
      readonly index: 0;
      readonly message: {
        readonly role: 'assistant';
        readonly content: string | null;
        readonly refusal: null;
        readonly reasoning_content?: string;
        readonly tool_calls?: readonly ChatToolCall[];
      };
      readonly finish_reason: ChatFinishReason | null;
      readonly logprobs: null;
    },
  ];
  readonly usage: ChatUsage;
}

/** One tool call's piece of a streamed delta: the first carries id and name, the rest arguments. */
interface ChatToolCallDelta {
  readonly index: number;
  readonly id?: string;
  readonly type?: 'function';
  readonly function: { readonly name?: string; readonly arguments: string };
}

export interface ChatDelta {
  readonly role?: 'assistant';
  readonly content?: string;
  readonly reasoning_content?: string;
  readonly tool_calls?: readonly ChatToolCallDelta[];
}

export interface ChatCompletionChunk {
  readonly id: string;
  readonly object: 'chat.completion.chunk';
  readonly created: number;
  readonly model: string;
  /** Empty in the closing usage chunk, as the API sends it. */
  readonly choices: ReadonlyArray<{
    readonly index: 0;
    readonly delta: ChatDelta;
    readonly finish_reason: ChatFinishReason | null;
    readonly logprobs: null;
  }>;
  readonly usage?: ChatUsage;
}

/** The error body OpenAI-compatible servers send (and their clients parse). */
export interface ChatErrorBody {
  readonly error: {
    readonly message: string;
    readonly type: string;
    readonly param: null;
    readonly code: number | string | null;
  };
}
