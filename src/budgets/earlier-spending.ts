import type { SerializedNode } from '../types/serialized.js';
import type { TokenUsage } from '../types/usage.js';
import type { BudgetAmounts } from './budget-amounts.js';
import type { BudgetLedger } from './budget-ledger.js';
import type { BudgetNode } from './budget-node.js';
import { ledgersAbove } from './node-budgets.js';

/** What a request (or several, with `requests`) that answered with `usage` used of each limit. */
export function amountsOfUsage(usage: TokenUsage, requests = 1, toolCalls = 0): BudgetAmounts {
  const tokens = usage.inputTokens + usage.outputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens;
  return { usd: usage.costUsd ?? 0, tokens, modelRequests: requests, toolCalls };
}

/**
 * What the work under exported nodes spent: their usage, their `modelRequest` events and their
 * tool and MCP call nodes. For work an earlier attempt or another process did (a replayed step's
 * subtree, a worker's tree), which this process books instead of running again. Pruned usage
 * (`dropped.usage`) counts too.
 */
export function amountsOfSubtree(nodes: readonly unknown[]): BudgetAmounts {
  const total = { usd: 0, tokens: 0, modelRequests: 0, toolCalls: 0 };
  const stack = [...nodes];
  while (stack.length > 0) {
    const node = stack.pop() as Partial<SerializedNode> | null | undefined;
    if (typeof node !== 'object' || node === null) continue;
    for (const usage of [node.usage, node.dropped?.usage]) {
      if (usage === undefined) continue;
      const used = amountsOfUsage(usage, 0);
      total.usd += used.usd;
      total.tokens += used.tokens;
    }
    if (node.kind === 'toolCall' || node.kind === 'mcpCall') total.toolCalls += 1;
    if (Array.isArray(node.events)) for (const event of node.events) if (event?.type === 'modelRequest') total.modelRequests += 1;
    if (Array.isArray(node.children)) stack.push(...node.children);
  }
  return total;
}

/** Books `used` on every budget enclosing `node`, without events (see `BudgetLedger.book`). */
export function bookBelow(node: BudgetNode, used: BudgetAmounts): void {
  for (const ledger of ledgersAbove(node)) ledger.book(used);
}

/**
 * Books an agent call served from a record (a durable or DBOS replay) on `ledgers`, the budgets
 * above it: its usage, its requests (one when the record predates their count) and its tool calls.
 */
export function bookReplayedCall(ledgers: readonly BudgetLedger[], usage: TokenUsage, requests: number | undefined, toolCalls: number): void {
  if (ledgers.length === 0) return;
  const used = amountsOfUsage(usage, requests ?? 1, toolCalls);
  for (const ledger of ledgers) ledger.book(used);
}
