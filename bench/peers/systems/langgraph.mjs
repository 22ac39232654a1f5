// LangGraph.js: a graph with one node that produces step i's result and loops back to itself
// until STEPS supersteps have run, so each step is one superstep (and one checkpoint when a
// checkpointer is attached). Variants: PostgresSaver with durability 'sync' (a checkpoint is
// saved before the next step starts) or 'async' (saved while the next step runs), and no
// checkpointer at all (nothing kept).
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { PostgresSaver } from '@langchain/langgraph-checkpoint-postgres';
import { DATABASE_URL, STEPS, VARIANT, newRunId, serve, stepResult } from './common.mjs';

const State = Annotation.Root({
  // Both channels keep the latest value only (no reducer): a checkpoint holds the step count and
  // the last step's result, not a list that grows with the run.
  i: Annotation(),
  last: Annotation(),
});

let checkpointer;
let durability;
if (VARIANT === 'pg-sync' || VARIANT === 'pg-async') {
  checkpointer = PostgresSaver.fromConnString(DATABASE_URL);
  await checkpointer.setup();
  durability = VARIANT === 'pg-sync' ? 'sync' : 'async';
} else if (VARIANT !== 'none') {
  throw new Error(`unknown variant ${VARIANT}`);
}

const graph = new StateGraph(State)
  .addNode('step', (state) => ({ i: state.i + 1, last: stepResult(state.i) }))
  .addEdge(START, 'step')
  .addConditionalEdges('step', (state) => (state.i < STEPS ? 'step' : END))
  .compile(checkpointer ? { checkpointer } : {});

async function runOnce() {
  const options = { recursionLimit: STEPS + 10, configurable: { thread_id: newRunId() } };
  if (durability) options.durability = durability;
  const out = await graph.invoke({ i: 0 }, options);
  return out.last;
}

await serve({ runOnce, close: async () => checkpointer?.end() });
