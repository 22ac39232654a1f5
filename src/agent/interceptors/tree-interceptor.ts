import type { TreeNode } from '../../core/tree-node.js';
import type { OriginalTimes } from '../../types/original-times.js';
import type { Workflow } from '../../core/workflow.js';
import { isDeepFrozen } from '../../util/deep-freeze.js';
import { nextEventId } from '../../util/ids.js';
import { serializeError } from '../../util/serialize-error.js';
import { totalTokens, usageWithout, ZERO_USAGE } from '../../util/usage.js';
import type { TokenUsage } from '../../types/usage.js';
import { NODE_USAGE } from '../../util/node-usage.js';
import { recordPromptCall } from '../../core/last-prompt.js';
import { isSuspension } from '../../errors/predicates.js';
import { providerFamily } from '../model/provider-family.js';
import type { PromptCall, PromptHandler, PromptInterceptor, PromptOutcome } from '../prompt-call.js';

/**
 * `agentPromptStart`/`agentPromptEnd` on the call's node, its status, and its usage for rollups.
 * Outside a workflow there is no node and nobody to tell: the events are not even built (the
 * answer's JSON text alone costs more than a cache hit's lookup), only the call's totals are filled in.
 */
export const treeInterceptor: PromptInterceptor = (call, next) => {
  if (call.tree.node === undefined) return next(call).then((last) => withTotals(call, last));
  return inTree(call, next);
};

/** Usage and turns of the whole call: every attempt, not only the one that succeeded. */
function withTotals<T>(call: PromptCall<T>, last: PromptOutcome<T>): PromptOutcome<T> {
  return last.cached || last.replayed === true ? last : { ...last, usage: call.meter.usage, turns: call.meter.turns };
}

async function inTree<T>(call: PromptCall<T>, next: PromptHandler): Promise<PromptOutcome<T>> {
  const { tree } = call;
  const started = tree.now();
  const { agentName, promptId } = call;
  const ancestry = call.plan.goalAncestry;
  // Events name the family (`openai`, `corp`), as spans and the viewer show it.
  const provider = providerFamily(call.model.provider);
  const workflow = tree.workflow as Workflow;
  const node = tree.node as TreeNode;
  // The usual start (Anthropic, no ancestry) and end are built whole, ids first as emit() orders
  // them: every agent call keeps them on its node, and a spread into an event puts its fields
  // out of the object (a property array each) and costs a slower copy.
  if (provider === 'anthropic' && !hasLevels(ancestry)) {
    const timestamp = workflow.clock.now();
    workflow.dispatch(node, { id: nextEventId(), nodeId: node.id, workflowId: workflow.id, timestamp, type: 'agentPromptStart', agentName, model: call.plan.model, promptId });
  } else {
    tree.emit({ type: 'agentPromptStart', agentName, model: call.plan.model, promptId, ...(provider !== 'anthropic' ? { provider } : {}), ...(hasLevels(ancestry) ? { goalAncestry: ancestry } : {}) });
  }
  try {
    const outcome = withTotals(call, await next(call));
    const usage = ownUsage(call, outcome.usage);
    node.setAttr(NODE_USAGE, usage);
    // A reflection's own call is not a result of the workflow's work.
    if (tree.workflow && tree.node && tree.node.parent?.kind !== 'reflection') {
      recordPromptCall(tree.workflow, tree.node, outcome.value);
    }
    // A replayed call is marked, and shows when it ran where its journal kept that.
    const ran = outcome.replayed === true ? replayedAt(node, outcome.ran) : undefined;
    tree.finish('completed', ran?.endedAt);
    const duration = ran !== undefined ? ran.endedAt - ran.startedAt : tree.now() - started;
    const output = answerText(outcome);
    const { model, stopReason, turns, cached } = outcome;
    // One literal per event (a replayed call's names it, before the output, as it always did).
    if (outcome.replayed === true) {
      tree.emit({ type: 'agentPromptEnd', agentName, model, promptId, status: 'completed', duration, stopReason, usage, turns, cached, replayed: true, output });
    } else {
      const timestamp = workflow.clock.now();
      workflow.dispatch(node, {
        id: nextEventId(),
        nodeId: node.id,
        workflowId: workflow.id,
        timestamp,
        type: 'agentPromptEnd',
        agentName,
        model,
        promptId,
        status: 'completed',
        duration,
        stopReason,
        usage,
        turns,
        cached,
        output,
      });
    }
    return outcome;
  } catch (error) {
    // Turns already answered were paid for, and so were a feature's own requests (a grounding
    // pass before a refused first turn): they count in the event, the node and the rollups.
    const paid = call.meter.turns > 0 || totalTokens(call.meter.usage) > 0;
    const spent = ownUsage(call, call.meter.usage);
    if (tree.node && paid) tree.node.setAttr(NODE_USAGE, spent);
    // A call stopped to wait for approval is suspended, as its step and run are: not failed.
    tree.finish(tree.workflow?.isCancelled ? 'cancelled' : isSuspension(error) ? 'suspended' : 'failed');
    tree.emit({
      type: 'agentPromptEnd',
      agentName,
      model: call.plan.model,
      promptId,
      status: tree.node?.status ?? 'failed',
      duration: tree.now() - started,
      stopReason: null,
      usage: paid ? spent : { ...ZERO_USAGE },
      turns: call.meter.turns,
      cached: false,
      error: serializeError(error),
    });
    throw error;
  }
}

/** The usage this process's node shows: the call's, less what an earlier process's node shows. */
function ownUsage<T>(call: PromptCall<T>, usage: TokenUsage): TokenUsage {
  const carried = call.meter.carried;
  return carried === undefined ? usage : usageWithout(usage, carried);
}

/** Marks a replayed call's node and starts it when the call ran; its original times, if kept. */
function replayedAt(node: TreeNode, ran: OriginalTimes | undefined): OriginalTimes | undefined {
  node.markReplayed();
  if (ran === undefined) return ran;
  node.backdateStart(ran.startedAt);
  // The step re-run around it (and what holds that step) began in the earlier process too, no
  // later than the call did: their spans start there, so the tree still nests.
  for (let at = node.parent; at !== null; at = at.parent) {
    const start = at.startTime;
    if (start !== undefined && start > ran.startedAt) at.backdateStart(ran.startedAt);
  }
  return ran;
}

/** Whether the ancestry has any level, without `Object.keys` building an array per call. */
function hasLevels(ancestry: object): boolean {
  for (const _ in ancestry) return true;
  return false;
}

const OUTPUT_LIMIT = 2_000;

// A cache hit's answer is the store's deep-frozen object, shared by every hit of that entry: its
// text cannot change, so it is serialized once, not on every hit. `null` marks one that is not.
const frozenTexts = new WeakMap<object, string | null>();

/** The answer as JSON text, capped: the model's own text when it sent one, else the data serialized. */
function answerText<T>(outcome: PromptOutcome<T>): string {
  if (outcome.answerText !== undefined) return capped(outcome.answerText.trim());
  const data = outcome.answerData;
  if (typeof data !== 'object' || data === null || !Object.isFrozen(data)) return serialized(data);
  const known = frozenTexts.get(data);
  if (known !== undefined) return known ?? serialized(data);
  const text = serialized(data);
  frozenTexts.set(data, isDeepFrozen(data) ? text : null);
  return text;
}

function serialized(data: unknown): string {
  return capped(JSON.stringify(data) ?? '');
}

function capped(text: string): string {
  return text.length > OUTPUT_LIMIT ? `${text.slice(0, OUTPUT_LIMIT)}…` : text;
}
