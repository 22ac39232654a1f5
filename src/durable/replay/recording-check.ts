import type { PromptCall } from '../../agent/prompt-call.js';
import type { TreeNode } from '../../core/tree-node.js';
import type { ReplayCheck } from '../runtime/replay-check.js';
import { callRequestOf, callToolsOf } from '../runtime/call-request.js';
import type { CallRecord, CallRequest, StepRecord } from '../store/stored-records.js';
import { lineDiff } from '../../util/line-diff.js';
import { nodePath } from './node-path.js';
import type { Recording } from './recording.js';
import { ReplayDivergenceError, type ChangedPart, type ReplayDivergence } from './replay-divergence.js';

/**
 * Checks a replay against its recording as the run goes: steps must start in the recorded order
 * within each workflow, and every agent call must be one the recording served. The first
 * difference throws, so the run stops there; `finish` reports what the run never reached.
 */
export class RecordingCheck implements ReplayCheck {
  /** Per workflow (the key up to its last `:`), the recorded steps in the order they started. */
  private readonly expected = new Map<string, string[]>();
  private readonly reached = new Map<string, number>();
  private readonly recordedSteps = new Set<string>();
  private readonly unservedCalls: Set<string>;

  constructor(recording: Recording) {
    for (const step of startOrder(recording.steps)) {
      const workflow = workflowOf(step.key);
      const list = this.expected.get(workflow) ?? [];
      list.push(step.key);
      this.expected.set(workflow, list);
      this.recordedSteps.add(step.key);
    }
    this.unservedCalls = new Set(recording.calls.map((call) => call.key));
  }

  stepStarting(key: string, node: TreeNode): void {
    const workflow = workflowOf(key);
    const list = this.expected.get(workflow) ?? [];
    const at = this.reached.get(workflow) ?? 0;
    if (list[at] === key) {
      this.reached.set(workflow, at + 1);
      return;
    }
    const path = nodePath(node);
    if (!this.recordedSteps.has(key)) {
      diverge({ kind: 'step-added', key, path, parts: [], summary: `Replay diverged at ${path}: step "${node.name}" (${key}) is not in the recording.` });
    }
    const instead = list[at];
    diverge({
      kind: 'step-order',
      key,
      path,
      parts: [],
      summary: `Replay diverged at ${path}: step "${node.name}" (${key}) started where the recording started ${instead === undefined ? 'no further step' : `"${instead}"`}.`,
    });
  }

  callServed<T>(key: string, call: PromptCall<T>, recorded: CallRecord): void {
    this.unservedCalls.delete(key);
    // The fingerprint leaves the tools out (a resume serves a call whatever tools it had); a
    // replay tests the code, and a changed tool is a changed call.
    if (recorded.request?.tools === undefined) return;
    // Only the tools are built and compared: the rest is in the fingerprint, and diffing the user
    // text and schema of every served call was a good part of a long replay's time.
    const parts = changedParts(recorded.request, callToolsOf(call), ['tools', 'mcps']);
    if (parts.length > 0) {
      const path = nodePath(call.tree.node);
      diverge({ kind: 'call-changed', key, path, parts, summary: `Replay diverged at ${path}: agent "${call.agentName}" (${key}) differs from the recording in ${parts.map((p) => p.part).join(', ')}.` });
    }
  }

  callMissing<T>(key: string, call: PromptCall<T>): never {
    const path = nodePath(call.tree.node);
    const request = callRequestOf(call);
    return diverge({
      kind: 'call-added',
      key,
      path,
      parts: [],
      summary: `Replay diverged at ${path}: agent "${call.agentName}" was called (${key}, model ${request.model}), and the recording has no such call. Nothing was sent.`,
    });
  }

  callChanged<T>(key: string, call: PromptCall<T>, recorded: CallRecord): never {
    const path = nodePath(call.tree.node);
    const parts = recorded.request === undefined ? [] : changedParts(recorded.request, callRequestOf(call));
    if (parts.length === 0) {
      const parsed = call.prompt.responseFormat.safeParse(recorded.answer);
      if (!parsed.success) parts.push(part('answer', recorded.answer, parsed.error.message));
    }
    const what = parts.length === 0 ? 'its request changed (this recording keeps only a fingerprint, so no diff)' : parts.map((p) => p.part).join(', ');
    return diverge({ kind: 'call-changed', key, path, parts, summary: `Replay diverged at ${path}: agent "${call.agentName}" (${key}) differs from the recording in ${what}.` });
  }

  /** After the run: the first recorded step or call it never reached, if any. */
  finish(): ReplayDivergence | undefined {
    for (const [workflow, list] of this.expected) {
      const missed = list[this.reached.get(workflow) ?? 0];
      if (missed !== undefined) {
        return { kind: 'step-removed', key: missed, path: missed, parts: [], summary: `Replay diverged: recorded step ${missed} never ran.` };
      }
    }
    for (const key of this.unservedCalls) {
      return { kind: 'call-removed', key, path: key, parts: [], summary: `Replay diverged: recorded agent call ${key} was never made.` };
    }
    return undefined;
  }
}

function diverge(divergence: ReplayDivergence): never {
  throw new ReplayDivergenceError(divergence);
}

/** The key of the workflow a step key belongs to: everything before the step's own `:name#n`. */
function workflowOf(stepKey: string): string {
  const colon = stepKey.lastIndexOf(':');
  return colon < 0 ? '' : stepKey.slice(0, colon);
}

/** Steps by when they started (stored order where a record has no time): records are stored as steps settle. */
function startOrder(steps: readonly StepRecord[]): StepRecord[] {
  return steps
    .map((step, index) => ({ step, index }))
    .sort((a, b) => (a.step.startedAt ?? a.step.at) - (b.step.startedAt ?? b.step.at) || a.index - b.index)
    .map(({ step }) => step);
}

const ALL_PARTS = ['model', 'system', 'user', 'schema', 'tools', 'mcps'] as const;

function changedParts(recorded: CallRequest, current: Partial<CallRequest>, names: ReadonlyArray<(typeof ALL_PARTS)[number]> = ALL_PARTS): ChangedPart[] {
  const parts: ChangedPart[] = [];
  for (const name of names) {
    // A record written before tools were kept says nothing about them.
    if ((name === 'tools' || name === 'mcps') && recorded[name] === undefined) continue;
    const before = recorded[name];
    const after = current[name];
    if (JSON.stringify(before) !== JSON.stringify(after)) parts.push(part(name, before, after));
  }
  return parts;
}

function part(name: ChangedPart['part'], recorded: unknown, current: unknown): ChangedPart {
  return { part: name, recorded, current, diff: lineDiff(asText(recorded), asText(current)) };
}

function asText(value: unknown): string {
  return typeof value === 'string' ? value : (JSON.stringify(value, null, 2) ?? String(value));
}
