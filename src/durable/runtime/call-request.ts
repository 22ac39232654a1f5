import type { z } from 'zod';
import { modelKeyOf } from '../../agent/model/model-key.js';
import type { PromptCall } from '../../agent/prompt-call.js';
import type { CallRequest } from '../store/stored-records.js';
import { loadedZodOrFail } from '../../util/load-zod.js';
import { inputSchemaOf } from '../../agent/toolset.js';

/**
 * What a call asked, as its record keeps it beside the fingerprint: the model (as cache keys name
 * it), the system prompt, the user content and the answer's JSON Schema, masked as the tree masks
 * them. A replay that finds the fingerprint changed diffs these parts.
 */
export function callRequestOf<T>(call: PromptCall<T>): CallRequest {
  const { system, userContent } = call.plan;
  return {
    model: modelKeyOf(call),
    system: system === undefined ? null : call.secrets.text(system),
    user: call.secrets.text(userContent),
    schema: answerSchemaOf(call.prompt.responseFormat),
    ...callToolsOf(call),
  };
}

/** The tools and MCP servers a call offered, as its request keeps them (a replay compares only these on every served call). */
export function callToolsOf<T>(call: PromptCall<T>): Pick<CallRequest, 'tools' | 'mcps'> {
  return {
    tools: call.settings.tools.map((tool) => ({ name: tool.name, description: call.secrets.text(tool.description), input: inputSchemaOf(tool.input) })),
    mcps: call.settings.mcps.map((server) => server.name),
  };
}

// Converted once per schema object: every call of a prompt shares its schema.
const schemas = new WeakMap<object, unknown>();

function answerSchemaOf(schema: z.ZodType): unknown {
  let json = schemas.get(schema);
  if (json === undefined) {
    try {
      json = loadedZodOrFail().toJSONSchema(schema, { io: 'input', unrepresentable: 'any' });
    } catch {
      // A schema JSON Schema cannot express: the fingerprint still tells a change, without a diff.
      json = null;
    }
    schemas.set(schema, json);
  }
  return json;
}
