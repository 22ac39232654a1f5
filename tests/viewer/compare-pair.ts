import type { Recording, RunStore } from 'groundswell/durable';
import { BASE, record, type Reply } from '../durable/replay/compare-fixture.js';

/** B's replies: the second ask answers 5 with more tokens, and B runs an added `check` step. */
export const B_REPLIES: readonly Reply[] = [BASE[0] as Reply, { n: 5, input: 100, output: 40 }, { n: 0, input: 10, output: 5 }, BASE[2] as Reply];

/** Two recordings of the compare fixture's pipeline, runs `a` and `b` of `store`. */
export async function recordPair(store: RunStore): Promise<{ a: Recording; b: Recording }> {
  const a = await record(store, 'a', BASE);
  const b = await record(store, 'b', B_REPLIES, true);
  return { a, b };
}
