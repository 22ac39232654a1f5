import { literal } from '../checks/leaf.js';
import { discriminatedUnion } from '../checks/union.js';
import { expected, hasMethods, isObject, nonEmptyText, strict, stringArray, stringRecord, text } from '../checks/config-fields.js';

/** Server names end up inside tool names (`mcp__<server>__<tool>`), which the API limits to 64 chars. */
export const MCP_SERVER_NAME = /^[a-zA-Z0-9_-]{1,40}$/;

const serverName = expected<string>(`a server name matching ${MCP_SERVER_NAME} (it becomes part of tool names: mcp__<server>__<tool>)`, (v) =>
  typeof v === 'string' && MCP_SERVER_NAME.test(v),
);

// Duck-typed rather than `instanceof`, which fails when the ESM and CJS builds of the SDK both load.
const mcpServer = expected('an McpServer from @modelcontextprotocol/sdk/server/mcp.js', (v) =>
  hasMethods(v, 'connect', 'close') && isObject((v as { server?: unknown }).server),
);

const stdio = strict(
  { name: serverName, transport: literal('stdio'), command: nonEmptyText, args: stringArray.optional(), cwd: text.optional(), env: stringRecord.optional() },
  'a stdio MCP server config',
);

const inProcess = strict({ name: serverName, transport: literal('in-process'), server: mcpServer }, 'an in-process MCP server config');

/** One entry of `mcps`; the transport decides which keys belong. */
export const mcpServerConfigSchema = discriminatedUnion('transport', [stdio, inProcess], {
  notObject: 'an MCP server config ({ name, transport: "stdio", command } or { name, transport: "in-process", server })',
  unknownTag: 'one of: stdio, in-process',
});
