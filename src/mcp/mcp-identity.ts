import type { AnySchema } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { normalizeObjectSchema } from '@modelcontextprotocol/sdk/server/zod-compat.js';
import { toJsonSchemaCompat } from '@modelcontextprotocol/sdk/server/zod-json-schema-compat.js';
import { validateMcpConfig, type McpServerConfig } from './mcp-config.js';

/** What the model would be shown for one in-process tool, as plain JSON. */
export interface McpToolIdentity {
  readonly name: string;
  readonly description: string | null;
  readonly inputSchema: Record<string, unknown>;
}

/** JSON-safe data that changes whenever what the model sees of a server could change (a cache-key part). */
export type McpIdentity =
  | {
      readonly name: string;
      readonly transport: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      readonly cwd: string | null;
      /** Keys only: values are often secrets and must never end up in a cache key or a log. */
      readonly envKeys: readonly string[];
    }
  | {
      readonly name: string;
      readonly transport: 'in-process';
      /** Null when the server's tool registry could not be read (a different SDK build). */
      readonly tools: readonly McpToolIdentity[] | null;
    };

/**
 * Data identifying a server for a cache key. Stdio: how it is started, with env keys but never env
 * values. In-process: the name and each registered tool's name, description and input schema, so
 * editing a tool invalidates cached answers.
 */
export function mcpIdentity(config: McpServerConfig): McpIdentity {
  validateMcpConfig(config);
  if (config.transport === 'stdio') {
    return {
      name: config.name,
      transport: 'stdio',
      command: config.command,
      args: [...(config.args ?? [])],
      cwd: config.cwd ?? null,
      envKeys: Object.keys(config.env ?? {}).sort(),
    };
  }
  return { name: config.name, transport: 'in-process', tools: registeredTools(config.server) };
}

/**
 * The SDK has no public accessor for an McpServer's tools and listing them needs an async
 * round-trip, while a cache key must be computed synchronously. So the private registry is read
 * defensively and converted the same way the server converts it for `tools/list`; any surprise
 * yields null and the identity falls back to the server name.
 */
function registeredTools(server: object): McpToolIdentity[] | null {
  try {
    const registry: unknown = Reflect.get(server, '_registeredTools');
    if (typeof registry !== 'object' || registry === null) return null;
    const tools: McpToolIdentity[] = [];
    for (const [name, entry] of Object.entries(registry)) {
      if (typeof entry !== 'object' || entry === null) return null;
      const tool = entry as { enabled?: unknown; description?: unknown; inputSchema?: unknown };
      if (tool.enabled === false) continue;
      tools.push({
        name,
        description: typeof tool.description === 'string' ? tool.description : null,
        inputSchema: inputJsonSchema(tool.inputSchema),
      });
    }
    return tools.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  } catch {
    return null;
  }
}

const EMPTY_OBJECT_SCHEMA: Record<string, unknown> = { type: 'object', properties: {} };

function inputJsonSchema(schema: unknown): Record<string, unknown> {
  if (schema === undefined) return EMPTY_OBJECT_SCHEMA;
  if (!isZodSchema(schema)) throw new TypeError('unrecognised input schema');
  const normalized = normalizeObjectSchema(schema);
  if (normalized === undefined) return EMPTY_OBJECT_SCHEMA;
  // A JSON round-trip guarantees plain data (no undefined members, no prototypes) for hashing.
  return JSON.parse(JSON.stringify(toJsonSchemaCompat(normalized, { strictUnions: true, pipeStrategy: 'input' }))) as Record<
    string,
    unknown
  >;
}

/** zod 4 schemas carry `_zod`, zod 3 ones `_def`; the SDK accepts both. */
function isZodSchema(value: unknown): value is AnySchema {
  return typeof value === 'object' && value !== null && ('_zod' in value || '_def' in value);
}
