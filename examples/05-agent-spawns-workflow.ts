/**
 * Example 5: an agent spawning a workflow dynamically.
 *
 * - a registry of workflows an agent may create at run time (`introspectionTools({ workflows })`),
 *   here one factory with a description and a zod schema for its input
 * - the agent's `request_spawn_workflow` tool call creates the workflow and runs it; it mounts
 *   under that toolCall node with no plumbing, so its events reach the root's observer
 * - a limit against runaway spawning (`maxSpawnsPerRun: 1`): the second request comes back to the
 *   model as an error result naming the limit, and nothing is left running
 * - the tree: workflow → step → agentPrompt → toolCall → spawned workflow → its steps
 *
 * Offline by default (a scripted model); with ANTHROPIC_API_KEY set it calls the real API.
 * Run: npx tsx examples/05-agent-spawns-workflow.ts
 */
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  defineSpawnableWorkflow,
  introspectionTools,
  WorkflowTreeDebugger,
} from 'groundswell';
import { json, toolUse } from 'groundswell/testing';
import { assertScriptsComplete, exampleClient, tokens } from './support/model.js';

const DRAFT = 'Groundswell mounts every agent call in one tree. Observers see everything, live.';

// One model call, turn by turn: spawn the analysis, try a second one (refused by the limit), answer.
const client = exampleClient([
  toolUse('request_spawn_workflow', { name: 'text-stats', input: { text: DRAFT } }, { text: 'Let me measure the draft first.', ...tokens(620, 48) }),
  toolUse('request_spawn_workflow', { name: 'text-stats', input: { text: 'A second pass.' } }, tokens(780, 40)),
  json({ verdict: 'ready', reason: 'Two short sentences, 12 words; the longest word is 11 letters.' }, tokens(850, 30)),
]);

/** The workflow the agent may spawn: a fresh instance per request, built from the model's input. */
function textStats({ text }: { text: string }) {
  return createWorkflow({ name: 'text-stats' }, async (ctx) => {
    const words = await ctx.step('split words', () => text.split(/\s+/).map((w) => w.replace(/\W/g, '')).filter(Boolean));
    const sentences = await ctx.step('count sentences', () => text.split(/[.!?]+/).filter((s) => s.trim() !== '').length);
    const longest = await ctx.step('find longest', () => words.reduce((a, b) => (b.length > a.length ? b : a), ''));
    return { words: words.length, sentences, longest };
  });
}

const editor = createAgent({
  name: 'editor',
  system: 'You review drafts. Measure a draft with the text-stats workflow before judging it.',
  // One line: the introspection tools, plus the workflows this agent may spawn and the limits.
  tools: introspectionTools({
    workflows: {
      // The model's input is checked against the schema before create() sees it, typed.
      'text-stats': defineSpawnableWorkflow({
        description: 'Counts the words and sentences of { text }.',
        input: z.object({ text: z.string().min(1) }),
        create: textStats,
      }),
    },
    limits: { maxSpawnsPerRun: 1 },
  }),
  client,
});

const review = createPrompt({
  name: 'review draft',
  user: 'Is this draft ready to publish?',
  data: { draft: DRAFT },
  responseFormat: z.object({ verdict: z.enum(['ready', 'revise']), reason: z.string() }),
});

const publishing = createWorkflow({ name: 'Publishing' }, (ctx) => ctx.step('review', () => editor.execute(review)));

// Events of the spawned workflow arrive at the root's observer like those of any child.
publishing.addObserver({
  onEvent: (event) => {
    if (event.workflowId === publishing.id) return;
    if (event.type === 'workflowStart') console.log(`  [observer] spawned workflow "${event.name}" started (${event.workflowId})`);
    if (event.type === 'stepEnd') console.log(`  [observer]   step "${event.name}" ${event.status}`);
    if (event.type === 'workflowEnd') console.log(`  [observer] spawned workflow "${event.name}" ${event.status}`);
  },
});

console.log('== live events from the spawned workflow ==');
const { value, toolCalls } = await publishing.run();

console.log('\n== what the tool calls sent back to the model ==');
for (const call of toolCalls) console.log(`  ${call.name}${call.isError ? ' (error)' : ''} → ${call.output}`);
console.log(`\nanswer: ${value.verdict} (${value.reason})`);

console.log('\n== tree (the spawned workflow hangs under the toolCall node) ==');
console.log(new WorkflowTreeDebugger(publishing).toTreeString());
assertScriptsComplete();
