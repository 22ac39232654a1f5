import type {
  ContentBlock,
  Message,
  StopReason,
  TextBlock,
  ToolUseBlock,
  Usage,
} from '@anthropic-ai/sdk/resources/messages';
import type { ErrorType } from '@anthropic-ai/sdk/resources/shared';
import type { RecordedRequest } from './recorded-request.js';

/** A text block as a script writes it; `citations` defaults to `null`, as the API sends it. */
export type TextBlockInput = Omit<TextBlock, 'citations'> & { citations?: TextBlock['citations'] };

/**
 * A tool_use block as a script writes it. A missing `id` is generated from the request number
 * and the block position, so ids stay unique across the turns of a tool loop.
 */
export type ToolUseBlockInput = Omit<ToolUseBlock, 'id' | 'caller'> &
  Partial<Pick<ToolUseBlock, 'id' | 'caller'>>;

/** Any content block the Messages API can return, with the scripted conveniences above. */
export type ContentBlockInput = TextBlockInput | ToolUseBlockInput | Exclude<ContentBlock, TextBlock | ToolUseBlock>;

/** Usage fields to report; whatever is left out comes from `DEFAULT_USAGE`. */
export type UsageInput = Partial<Usage>;

/**
 * A Message with every field optional: what is left out is filled in per request (id, the
 * request's model, stop_reason from the content, default usage).
 */
export type MessageTemplate = Partial<Omit<Message, 'content' | 'usage'>> & {
  content?: readonly ContentBlockInput[];
  usage?: UsageInput;
};

/** Options every message-producing builder accepts. */
export interface ResponseOptions {
  usage?: UsageInput;
  /** Default `end_turn`, or `tool_use` when the content has a tool_use block. */
  stopReason?: StopReason | null;
  stopSequence?: string | null;
  /** Default: the `model` of the request being answered. */
  model?: string;
  /** Default: `msg_scripted_<request number>`. */
  messageId?: string;
  /** Wait this long (honouring the request's abort signal) before answering. */
  delayMs?: number;
}

/** How a message is cut into server-sent events. */
export interface StreamOptions {
  /** Code points per text/thinking/input_json delta. Default 16. */
  chunkSize?: number;
  /**
   * End the stream with an `event: error` (as the API does when it overloads mid-stream) after
   * `afterEvents` events (default: after the last content block, before `message_delta`). Any
   * `type` is sent as given, such as an OpenAI-compatible server's `insufficient_quota`.
   */
  interruptWith?: { type?: ErrorType | (string & {}); message?: string; afterEvents?: number };
  /**
   * Drop the connection after this many events (no error event, no message_stop): the body
   * fails as undici's does when a proxy or the network cuts it (`TypeError: terminated`).
   */
  cutAfterEvents?: number;
}

/** Answer with a Messages API `Message`: as JSON, or as an SSE stream when the request asks for one. */
export interface MessageStep {
  readonly kind: 'message';
  /** How assertComplete() and failure messages name this step. */
  readonly label: string;
  readonly template: MessageTemplate;
  /** `auto` answers in the form the request asked for; `stream` insists on `stream: true`. */
  readonly delivery: 'auto' | 'stream';
  readonly streamOptions: StreamOptions;
  readonly delayMs: number;
  /**
   * The value of a `json()` step: answered as the structured-answer tool's call instead of text
   * when the request forces that tool (an agent asking for its answer through a forced tool, as
   * provider models without structured outputs do), so one script serves both forms.
   */
  readonly structured?: unknown;
}

/** Answer with an arbitrary HTTP response (errors in the API's error shape, or anything raw). */
export interface HttpStep {
  readonly kind: 'http';
  readonly label: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Sent as is when a string, otherwise as JSON. */
  readonly body: unknown;
  /** Send only this many bytes of the body, then fail it as a dropped connection does. */
  readonly cutAfterBytes?: number;
  readonly delayMs: number;
}

/** Make `fetch` reject the way undici does when a connection fails or times out. */
export interface ConnectionFailureStep {
  readonly kind: 'networkError' | 'timeout';
  readonly label: string;
  readonly message: string;
  readonly delayMs: number;
}

/** One answer of a scripted model. Build them with the functions in `responses.ts`. */
export type ScriptStep = MessageStep | HttpStep | ConnectionFailureStep;

/** Decides the answer to each request instead of a fixed script. `index` is 0-based. */
export type Responder = (request: RecordedRequest, index: number) => ScriptStep | Promise<ScriptStep>;
