import { isDeepStrictEqual } from 'node:util';
import type { LoadedRun } from 'groundswell/durable';
import type { RunChunk } from 'groundswell/web';
import { EXPECTED } from './sim-workflow.js';
import type { World } from './world.js';

interface TreeNodeJson {
  name?: string;
  startTime?: number;
  endTime?: number;
  children?: TreeNodeJson[];
}

/**
 * What must hold after any schedule, read from outside the code under test (the store read back
 * by a clean instance, and what the world saw): one entry per broken promise.
 */
export function violations(world: World, loaded: LoadedRun | undefined, stream?: readonly RunChunk[]): string[] {
  const found: string[] = [];
  if (loaded === undefined) return ['the run is not in the store'];
  const { run } = loaded;
  // The final result equals the uninterrupted run's.
  if (run.status !== 'completed' || run.result !== EXPECTED) found.push(`the run ended ${run.status} with ${JSON.stringify(run.result)}, not completed with ${EXPECTED}`);
  // A completed or failed status, once acknowledged, never changes.
  for (const final of world.finals) {
    if (final.status !== run.status || !isDeepStrictEqual(final.result, run.result)) {
      found.push(`process ${final.proc} was told the run ended ${final.status} (${JSON.stringify(final.result)}); the store holds ${run.status}`);
    }
  }
  // No step's side effect twice in one process (one lease), none after its record was acknowledged.
  const perProcess = new Map<string, number>();
  for (const effect of world.effects) {
    const key = `${effect.proc}:${effect.step}`;
    perProcess.set(key, (perProcess.get(key) ?? 0) + 1);
    if (perProcess.get(key) === 2) found.push(`step ${effect.step} ran twice in process ${effect.proc}`);
    for (const [stepKey, acks] of world.stepAcks) {
      if (!stepKey.endsWith(`:${effect.step}#0`)) continue;
      const earlier = acks.find((ack) => ack.seq < effect.seq);
      // A body the process was paused inside of finishes when it goes on (see World.pausedInside);
      // a body it began after the pause must not: its store writes are refused first.
      if (earlier !== undefined && !world.pausedInside(effect.proc, effect.step)) found.push(`step ${effect.step} ran in process ${effect.proc} after process ${earlier.proc}'s record of it was acknowledged`);
    }
  }
  // The refund ran, and once its approval was sent (the run stored waiting for it, with the call's
  // turn kept) no process started since asked the model that turn again. (A process started before
  // may still send its own first request: one paused past its lease goes on until a write is refused.)
  if (!world.effects.some((effect) => effect.step === 'refund')) found.push('the approved refund never ran');
  const sent = world.approvalSentAt;
  if (sent === undefined) found.push('the refund was never approved: the run never waited for it');
  for (const turn of world.firstTurns) {
    if (sent !== undefined && (world.startedAt.get(turn.proc) ?? 0) > sent) found.push(`process ${turn.proc} asked the model the refund turn again after its approval was sent`);
  }
  // No acknowledged record lost or changed.
  const steps = new Map(loaded.steps.map((step) => [step.key, step]));
  for (const [key, acks] of world.stepAcks) {
    const stored = steps.get(key);
    for (const ack of acks) {
      const value = ack.value as { status: string; value?: unknown };
      if (stored === undefined) found.push(`step ${key}, acknowledged to process ${ack.proc}, is not in the store`);
      else if (stored.status !== value.status || !isDeepStrictEqual(stored.value, value.value)) {
        found.push(`step ${key} holds ${JSON.stringify(stored.value)}, but process ${ack.proc} was told ${JSON.stringify(value.value)}`);
      }
    }
  }
  const calls = new Map(loaded.calls.map((call) => [call.key, call]));
  for (const [key, acks] of world.callAcks) {
    for (const ack of acks) {
      if (!calls.has(key)) found.push(`call ${key}, acknowledged to process ${ack.proc}, is not in the store`);
      else if (!isDeepStrictEqual(calls.get(key)?.answer, ack.value)) found.push(`call ${key} changed after process ${ack.proc} stored it`);
    }
  }
  if (stream !== undefined) found.push(...streamProblems(stream));
  // The stored tree nests: every node inside its parent's span.
  const root = (loaded.tree as { root?: TreeNodeJson } | undefined)?.root;
  if (root === undefined) found.push('the stored tree is missing');
  else found.push(...notNested(root));
  return found;
}

function notNested(parent: TreeNodeJson): string[] {
  const out: string[] = [];
  const stack: TreeNodeJson[] = [parent];
  while (stack.length > 0) {
    const node = stack.pop() as TreeNodeJson;
    for (const child of node.children ?? []) {
      stack.push(child);
      const start = child.startTime;
      const end = child.endTime;
      if (start !== undefined && node.startTime !== undefined && start < node.startTime) out.push(`node ${child.name} starts before its parent ${node.name}`);
      if (end !== undefined && node.endTime !== undefined && end > node.endTime) out.push(`node ${child.name} ends after its parent ${node.name}`);
    }
  }
  return out;
}

/**
 * The completed run's stream, read from the store: ids in order and each once, every text piece
 * inside a part that was started and not yet ended, one finish at the end, and the agent call's
 * answer whole in one text part (a process cut short may leave a partial part before it).
 */
function streamProblems(stream: readonly RunChunk[]): string[] {
  const out: string[] = [];
  let last: [number, number] = [0, -1];
  const open = new Set<string>();
  const texts = new Map<string, string>();
  for (const { id, chunk } of stream) {
    const [seq = Number.NaN, index = 0] = id.split('.').map(Number);
    if (!(seq > last[0] || (seq === last[0] && index > last[1]))) out.push(`stream chunk ${id} comes after ${last.join('.')}`);
    last = [seq, index];
    if (chunk.type === 'text-start') open.add(chunk.id);
    else if (chunk.type === 'text-delta') {
      if (!open.has(chunk.id)) out.push(`stream text piece for part ${chunk.id} that is not open`);
      texts.set(chunk.id, (texts.get(chunk.id) ?? '') + chunk.delta);
    } else if (chunk.type === 'text-end' && !open.delete(chunk.id)) out.push(`stream ends part ${chunk.id} that is not open`);
  }
  if (stream.at(-1)?.chunk.type !== 'finish' || stream.filter((c) => c.chunk.type === 'finish').length !== 1) out.push('the stream does not end with one finish');
  if (open.size > 0) out.push(`the stream leaves ${open.size} text parts open`);
  if (![...texts.values()].includes(JSON.stringify({ n: 7 }))) out.push(`no text part holds the answer whole: ${JSON.stringify([...texts.values()])}`);
  return out;
}
