import type { TokenUsage } from '../types/usage.js';
import { createNodeKey } from './node-key.js';
import { addUsage } from './usage.js';

/**
 * Tokens (and cost) an agent call spent, on the call's node. The agent layer sets it; the node
 * view (`WorkflowNode.usage`), the run export and the debugger's rollups read it. It lives here,
 * below all of them, so none has to import the agent layer. Pruned children's usage is summed
 * into their parent (`dropped.usage`), so totals stay whole.
 */
export const NODE_USAGE = createNodeKey<TokenUsage>('usage', { merge: addUsage, exportAs: 'usage' });
