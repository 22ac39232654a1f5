// `groundswell/testing`: the offline model kit. A scripted model behind the real
// Anthropic SDK client's `fetch`, so tests exercise the SDK's own request building, retries,
// parsing and streaming; the same script can also answer over a loopback Chat Completions server.
export { ScriptedModel, SCRIPTED_API_KEY, SCRIPTED_BASE_URL } from './scripted-model.js';
export type { ScriptedClientOptions, ScriptedFetch } from './scripted-model.js';
export {
  httpError,
  json,
  malformedJson,
  message,
  networkError,
  rawResponse,
  stream,
  text,
  timeout,
  toolUse,
} from './responses.js';
export type {
  ConnectionFailureOptions,
  HttpErrorOptions,
  RawResponseOptions,
  ToolCall,
  ToolUseOptions,
} from './responses.js';
export type {
  ConnectionFailureStep,
  ContentBlockInput,
  HttpStep,
  MessageStep,
  MessageTemplate,
  Responder,
  ResponseOptions,
  ScriptStep,
  StreamOptions,
  TextBlockInput,
  ToolUseBlockInput,
  UsageInput,
} from './script-step.js';
export type { RecordedRequest, RequestBody } from './recorded-request.js';
export { DEFAULT_USAGE } from './message-body.js';
export { requestData, userText } from './prompt-parts.js';
export type { DataSchema } from './prompt-parts.js';
export { toolResults } from './tool-results.js';
export type { SentToolResult } from './tool-results.js';
export { callingAgent } from './calling-agent.js';
export { route } from './route.js';
export type { RouteTable, RouteTarget } from './route.js';
export { ScriptError } from './script-error.js';
export { serveChatCompletions } from './chat-completions/serve.js';
export type { ChatCompletionsServer, ChatCompletionsServerOptions } from './chat-completions/serve.js';
export { expectReplay } from './expect-replay.js';
