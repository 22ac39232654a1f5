import { errorMessage } from '../util/describe.js';
import type { Tool as ApiTool } from '@anthropic-ai/sdk/resources/messages/messages';
import type { z } from 'zod';
import { loadedZodOrFail } from '../util/load-zod.js';
import type { McpConnection } from '../mcp/mcp-connection.js';
import { UsageError } from '../errors/groundswell-error.js';
import { validateTool, type Tool, type ToolContext } from '../tools/tool.js';
import type { ToolEffect } from '../tools/observation.js';
import { decideVerifierOutcome } from '../tools/verifier-outcome.js';
import type { VerifierOutcome } from '../types/trajectory.js';
import { toolContent } from './tool-content.js';

export interface ToolOutcome {
  /** What the model gets back in the tool_result. */
  content: string;
  isError: boolean;
  /** For a `verify` tool: how the run came out (read from the returned value, before it became text). */
  outcome?: VerifierOutcome;
}

/** A callable tool of one agent call, local or from an MCP server, under the name the model sees. */
export interface ToolHandler {
  readonly apiName: string;
  readonly kind: 'local' | 'mcp';
  readonly server?: string;
  readonly definition: ApiTool;
  /** Declared effect and target, for trajectory checkpoints. */
  readonly effect?: ToolEffect;
  targetOf?(input: unknown): string | undefined;
  /** Whether this call must be approved first (local tools that declare `needsApproval`). */
  needsApproval?(input: unknown): Promise<boolean>;
  invoke(input: unknown, context: ToolContext): Promise<ToolOutcome>;
}

const inputSchemas = new WeakMap<z.ZodType, ApiTool['input_schema']>();

/** A tool input's JSON Schema as sent to the model, converted once per schema object. */
export function inputSchemaOf(schema: z.ZodType): ApiTool['input_schema'] {
  let json = inputSchemas.get(schema);
  if (json === undefined) {
    json = withoutDialect(loadedZodOrFail().toJSONSchema(schema) as Record<string, unknown>);
    inputSchemas.set(schema, json);
  }
  return json;
}

export function localHandler(tool: Tool): ToolHandler {
  validateTool(tool);
  return {
    apiName: tool.name,
    kind: 'local',
    definition: { name: tool.name, description: tool.description, input_schema: inputSchemaOf(tool.input) },
    ...(tool.effect !== undefined ? { effect: tool.effect } : {}),
    ...(tool.needsApproval === undefined || tool.needsApproval === false ? {} : { needsApproval: (input: unknown) => approvalNeeded(tool, input) }),
    targetOf(input) {
      if (tool.target === undefined) return undefined;
      const parsed = tool.input.safeParse(input);
      try {
        return parsed.success ? tool.target(parsed.data) : undefined;
      } catch {
        return undefined; // a broken target() must not break the call
      }
    },
    async invoke(input, context) {
      const verifies = tool.effect === 'verify';
      const failure = (content: string): ToolOutcome => ({ content, isError: true, ...(verifies ? { outcome: decideVerifierOutcome(undefined, true) } : {}) });
      const parsed = tool.input.safeParse(input);
      if (!parsed.success) {
        const paths = parsed.error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`);
        return failure(`Invalid input for tool "${tool.name}": ${paths.join('; ')}`);
      }
      let result: unknown;
      try {
        result = await tool.execute(parsed.data, context);
      } catch (error) {
        return failure(`Tool "${tool.name}" failed: ${errorMessage(error)}`);
      }
      const sent = toolContent(tool.name, result);
      if (sent.isError) return failure(sent.content);
      if (!verifies) return sent;
      const verdict = tool.verdict === undefined ? undefined : () => tool.verdict?.(result, parsed.data);
      return { ...sent, outcome: decideVerifierOutcome(result, false, verdict) };
    },
  };
}

export function mcpHandlers(connection: McpConnection): ToolHandler[] {
  return connection.tools.map((tool) => ({
    apiName: tool.qualifiedName,
    kind: 'mcp' as const,
    server: connection.server,
    definition: {
      name: tool.qualifiedName,
      description: tool.description ?? `${tool.name} (MCP server ${connection.server})`,
      input_schema: withoutDialect({ type: 'object', ...tool.inputSchema }),
    },
    async invoke(input: unknown, context: ToolContext) {
      const result = await connection.callTool(tool.name, input, context.signal);
      return { content: result.content, isError: result.isError };
    },
  }));
}

/** The handlers by API name; two tools with one name are a usage error, not a silent shadowing. */
export function indexHandlers(handlers: readonly ToolHandler[]): Map<string, ToolHandler> {
  const byName = new Map<string, ToolHandler>();
  for (const handler of handlers) {
    if (byName.has(handler.apiName)) throw new UsageError(`Two tools are named "${handler.apiName}"; tool names must be unique.`);
    byName.set(handler.apiName, handler);
  }
  return byName;
}

/** `$schema` is noise to the API; the rest is the tool's contract. */
function withoutDialect(schema: Record<string, unknown>): ApiTool['input_schema'] {
  const { $schema: _dialect, ...rest } = schema;
  return rest as ApiTool['input_schema'];
}

/** A test that throws (or an input that does not parse) asks for approval: the safe side. */
async function approvalNeeded(tool: Tool, input: unknown): Promise<boolean> {
  const rule = tool.needsApproval;
  if (typeof rule !== 'function') return rule === true;
  const parsed = tool.input.safeParse(input);
  if (!parsed.success) return false;
  try {
    return (await rule(parsed.data)) !== false;
  } catch {
    return true;
  }
}
