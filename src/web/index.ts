// groundswell/web: a run streamed to a web app as the AI SDK's UI message stream.
export { toUIMessageStream } from './ui-message-stream.js';
export { uiMessageStreamResponse } from './stream-response.js';
export type { StreamResponseOptions } from './stream-response.js';
export { writeUIMessageStream } from './node-stream.js';
export type { NodeStreamOptions } from './node-stream.js';
export { runChunks } from './run-source.js';
export type { RunSource, StoredRun, RunChunksOptions } from './run-source.js';
export type { RunStreamOptions, TextCall, NodeKindName } from './run-stream-options.js';
export type { LiveStreamOptions, StreamableWorkflow } from './live-run-chunks.js';
export type { StoredStreamOptions, StreamSource } from './stored-run-chunks.js';
export type {
  UIChunk,
  RunChunk,
  RunDataChunk,
  NodePartData,
  BudgetPartData,
  CheckpointPartData,
  SignOffPartData,
  WaitPartData,
} from './ui-chunk.js';
export { answerApproval, handleApproval } from './approval-endpoint.js';
export type { ApprovalEndpointOptions } from './approval-endpoint.js';
