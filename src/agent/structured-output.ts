import type { JSONOutputFormat, Tool as ApiTool } from '@anthropic-ai/sdk/resources/messages/messages';
import type { z } from 'zod';
import { loadedZodOrFail } from '../util/load-zod.js';
import { StructuredOutputError, type OutputIssue } from './agent-errors.js';
import { strictJsonSchema } from './strict-json-schema.js';

/** The name of the forced tool that carries the answer in `structuredOutput: 'tool'` mode. */
export const ANSWER_TOOL = 'final_answer';

// The schema conversion runs once per schema object, not once per call.
const formats = new WeakMap<z.ZodType, JSONOutputFormat>();

/**
 * The API's `output_config.format` for a zod schema: the schema's INPUT side (what the model must
 * produce; transforms then run on our side, once), made strict the way the SDK's zod helper does.
 */
export function outputFormat(schema: z.ZodType): JSONOutputFormat {
  let format = formats.get(schema);
  if (format === undefined) {
    const json = loadedZodOrFail().toJSONSchema(schema, { io: 'input', reused: 'ref', unrepresentable: 'any' }) as Record<string, unknown>;
    const { $schema: _dialect, ...strict } = strictJsonSchema(json) as Record<string, unknown>;
    format = { type: 'json_schema', schema: strict };
    formats.set(schema, format);
  }
  return format;
}

// One answer tool and one `output_config` per schema too: every request of a call sends the same
// ones, and a budget's size estimate remembers what it measured by object, so a fresh copy per
// request would be measured and remembered again each time.
const answerTools = new WeakMap<z.ZodType, ApiTool>();
const outputConfigs = new WeakMap<z.ZodType, { format: JSONOutputFormat }>();

/** The forced tool whose input is the answer. */
export function answerTool(schema: z.ZodType): ApiTool {
  let tool = answerTools.get(schema);
  if (tool === undefined) {
    tool = {
      name: ANSWER_TOOL,
      description: 'Give your final answer. Call this exactly once, when you are done, with the complete answer.',
      input_schema: outputFormat(schema).schema as ApiTool['input_schema'],
    };
    answerTools.set(schema, tool);
  }
  return tool;
}

/** The request's `output_config` for an answer in `schema`'s format. */
export function outputConfig(schema: z.ZodType): { format: JSONOutputFormat } {
  let config = outputConfigs.get(schema);
  if (config === undefined) {
    config = { format: outputFormat(schema) };
    outputConfigs.set(schema, config);
  }
  return config;
}

/** The answer as the model gave it (JSON data) and as the schema parsed it. */
export interface ParsedAnswer<T> {
  readonly data: unknown;
  readonly value: T;
}

/** Parses JSON text (native mode) or takes a tool input (tool mode), then validates it. */
export function parseAnswer<T>(raw: unknown, schema: z.ZodType<T>, agentName: string, fromText: boolean): ParsedAnswer<T> {
  let candidate = raw;
  if (fromText) {
    if (typeof raw !== 'string' || raw.trim() === '') {
      throw new StructuredOutputError(`Agent "${agentName}": the model returned no answer text.`, agentName, 'missing_output', [], raw);
    }
    try {
      candidate = JSON.parse(raw);
    } catch (cause) {
      throw new StructuredOutputError(
        `Agent "${agentName}": the answer is not valid JSON (${(cause as Error).message}).`,
        agentName,
        'invalid_json',
        [{ path: '', message: 'not valid JSON' }],
        raw,
        { cause },
      );
    }
  }
  const result = schema.safeParse(candidate);
  if (result.success) return { data: candidate, value: result.data };
  const issues: OutputIssue[] = result.error.issues.map((issue) => ({
    path: issue.path.map(String).join('.'),
    message: issue.message,
  }));
  const list = issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ');
  throw new StructuredOutputError(
    `Agent "${agentName}": the answer does not match the schema at ${list}`,
    agentName,
    'schema_mismatch',
    issues,
    raw,
    { cause: result.error },
  );
}
