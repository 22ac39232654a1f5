/**
 * Example 8: an agent with tools, an MCP server, hooks and a skill.
 *
 * - local tools declared with defineTool and a zod input schema (the input is validated)
 * - `env` on the agent reaching a local tool and the MCP server for that call only (process.env is
 *   never touched)
 * - an in-process MCP server (the official SDK's McpServer) whose tool the model sees as
 *   `mcp__<server>__<tool>`
 * - hooks: sessionStart, preToolUse (refusing one dangerous call with a reason the model gets
 *   back as an error result), postToolUse, sessionEnd
 * - a skill: instructions sent as a section of the system prompt
 * - the tree with toolCall and mcpCall nodes under the agentPrompt node
 *
 * Offline by default (a scripted model); with ANTHROPIC_API_KEY set it calls the real API.
 * Run: npx tsx examples/08-tools-mcp-hooks-skills.ts
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  defineTool,
  WorkflowTreeDebugger,
  type AgentHooks,
  type Skill,
} from 'groundswell';
import { MCP_ENV_META_KEY } from 'groundswell/mcp';
import { json, toolUse } from 'groundswell/testing';
import { assertScriptsComplete, exampleClient, tokens } from './support/model.js';

// One model call runs its turns in order, so an ordered script is enough: check stock, then ask
// for a quote and (dangerously) delete an old SKU in one turn, then answer.
const client = exampleClient([
  toolUse('check_stock', { sku: 'SKU-42' }, tokens(410, 30)),
  toolUse(
    [
      { name: 'mcp__suppliers__quote_restock', input: { sku: 'SKU-42', units: 50 } },
      { name: 'delete_sku', input: { sku: 'SKU-41' } },
    ],
    { text: 'Stock is low: getting a quote, and removing the obsolete SKU-41.', ...tokens(520, 70) },
  ),
  json(
    {
      sku: 'SKU-42',
      action: 'reorder',
      units: 50,
      quote: '50 x SKU-42 at $3.10, ships to berlin-2 in 2 days',
      notes: 'SKU-41 was not deleted: that needs a human.',
    },
    tokens(690, 64),
  ),
]);

const checkStock = defineTool({
  name: 'check_stock',
  description: 'Units in stock for a SKU in this warehouse.',
  input: z.object({ sku: z.string().regex(/^SKU-\d+$/) }),
  // `env` is the agent's (or the call's) env, handed to the tool for this call only.
  execute: ({ sku }, { env }) => ({ sku, warehouse: env.WAREHOUSE ?? 'unknown', units: sku === 'SKU-42' ? 7 : 120 }),
});

const deleteSku = defineTool({
  name: 'delete_sku',
  description: 'Permanently delete a SKU and its history.',
  input: z.object({ sku: z.string() }),
  execute: ({ sku }) => `deleted ${sku}`, // never reached here: the preToolUse hook refuses it
});

// An MCP server living in this process; a stdio server would be { transport: 'stdio', command, args }.
const suppliers = new McpServer({ name: 'suppliers', version: '1.0.0' });
suppliers.registerTool(
  'quote_restock',
  {
    description: 'Price and lead time for reordering units of a SKU.',
    inputSchema: { sku: z.string(), units: z.number().int().min(1) },
  },
  // The call's env reaches an in-process server in the request's _meta (a stdio server gets it
  // as its process environment).
  ({ sku, units }, extra) => {
    const env = (extra._meta?.[MCP_ENV_META_KEY] ?? {}) as Record<string, string | undefined>;
    const text = `${units} x ${sku} at $3.10, ships to ${env.WAREHOUSE ?? 'unknown'} in 2 days`;
    return { content: [{ type: 'text', text }] };
  },
);

const restockPolicy: Skill = {
  name: 'restock-policy',
  description: 'When and how much to reorder.',
  content: 'Reorder when stock is below 10 units, in batches of 50. Never delete a SKU: retire it instead.',
};

const hooks: AgentHooks = {
  sessionStart: (c) => console.log(`  hook sessionStart  ${c.agentName} on ${c.model}`),
  preToolUse: (c) => {
    if (c.toolName === 'delete_sku') {
      console.log(`  hook preToolUse    ${c.toolName} ${JSON.stringify(c.toolInput)} → blocked`);
      return { block: true, reason: 'deleting a SKU needs a human approval' };
    }
    console.log(`  hook preToolUse    ${c.toolName} ${JSON.stringify(c.toolInput)} → allowed`);
    return undefined;
  },
  postToolUse: (c) => console.log(`  hook postToolUse   ${c.toolName} → ${c.isError ? 'error: ' : ''}${String(c.result)}`),
  sessionEnd: (c) => console.log(`  hook sessionEnd    after ${c.turn} turns${c.isError ? ' (failed)' : ''}`),
};

const stockKeeper = createAgent({
  name: 'stock-keeper',
  system: 'You manage the stock of one warehouse. Use the tools; follow your skills.',
  tools: [checkStock, deleteSku],
  mcps: [{ name: 'suppliers', transport: 'in-process', server: suppliers }],
  skills: [restockPolicy],
  hooks,
  env: { WAREHOUSE: 'berlin-2' },
  client,
});

const restock = createPrompt({
  name: 'restock',
  user: 'SKU-42 is selling and SKU-41 is obsolete. Check SKU-42, get a restock quote if needed, and clean up SKU-41.',
  responseFormat: z.object({
    sku: z.string(),
    action: z.enum(['reorder', 'none']),
    units: z.number().int().min(0),
    quote: z.string(),
    notes: z.string(),
  }),
});

const workflow = createWorkflow({ name: 'Restock' }, (ctx) => ctx.step('restock SKU-42', () => stockKeeper.execute(restock)));

console.log('== hooks as they run ==');
const { value, toolCalls, turns } = await workflow.run();
console.log(`\nanswer after ${turns} turns: ${value.action} ${value.units} of ${value.sku} (${value.quote}); ${value.notes}`);
console.log('tool calls:');
for (const call of toolCalls) {
  const outcome = call.blockedReason !== undefined ? `blocked: ${call.blockedReason}` : call.output;
  console.log(`  [${call.kind}] ${call.name} ${JSON.stringify(call.input)} → ${outcome}`);
}
console.log(`process.env.WAREHOUSE after the run: ${String(process.env.WAREHOUSE)} (env went to the tools only)`);

console.log('\n== tree ==');
console.log(new WorkflowTreeDebugger(workflow).toTreeString());
assertScriptsComplete();
