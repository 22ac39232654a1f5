/**
 * Example 10: introspection tools.
 *
 * - `tools: introspectionTools()` gives an agent tools to see its place in the workflow tree
 * - in its first turn the writer calls inspect_current_node and read_ancestor_chain (its node, step,
 *   workflow with goal and state snapshot, and the chain up to the root); in its second,
 *   inspect_prior_outputs (the researcher's call and tool result from the step before)
 * - what the tools return respects @ObservedState: the redacted token shows as ***, the hidden
 *   field is absent; every answer is JSON bounded by `maxChars`
 * - the tree, with the introspection tool calls under the writer's agentPrompt node
 *
 * Offline by default (a scripted model); with ANTHROPIC_API_KEY set it calls the real API.
 * Run: npx tsx examples/10-introspection-tools.ts
 */
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  defineTool,
  introspectionTools,
  ObservedState,
  Step,
  Workflow,
  WorkflowTreeDebugger,
} from 'groundswell';
import { json, toolUse } from 'groundswell/testing';
import { assertScriptsComplete, exampleClient, tokens } from './support/model.js';

// The researcher answers first (one tool call, then its answer); then the writer looks around.
const client = exampleClient([
  toolUse('search_archive', { query: 'harbour bridge opening' }, tokens(300, 30)),
  json({ facts: ['The harbour bridge opened in 1932.', 'It took eight years to build.'] }, tokens(420, 40)),
  toolUse(
    [
      { name: 'inspect_current_node', input: {} },
      { name: 'read_ancestor_chain', input: {} },
    ],
    { text: 'First, where am I?', ...tokens(900, 50) },
  ),
  toolUse('inspect_prior_outputs', { limit: 4 }, tokens(1_600, 30)),
  json({ headline: 'Ninety-odd years of the harbour bridge', basedOn: ['researcher: find facts'] }, tokens(2_300, 40)),
]);

const searchArchive = defineTool({
  name: 'search_archive',
  description: 'Searches the newspaper archive.',
  input: z.object({ query: z.string() }),
  execute: ({ query }) => ({ query, hits: ['1932-03-19: Bridge opens to cheering crowds', '1924: construction begins'] }),
});

const researcher = createAgent({ name: 'researcher', system: 'You find facts in the archive.', tools: [searchArchive], client });
// One line: the writer can now inspect the tree it runs in (answers capped at 2,000 characters).
const writer = createAgent({
  name: 'writer',
  system: 'You write headlines. Check where you are and what was found before you write.',
  tools: introspectionTools({ maxChars: 2_000 }),
  client,
});

class Newsroom extends Workflow {
  @ObservedState() topic = 'harbour bridge';
  @ObservedState() facts: string[] = [];
  @ObservedState({ redact: true }) archiveToken = 'tok-live-5f2c9a';
  @ObservedState({ hidden: true }) scratchpad = 'internal notes the agents never see';

  constructor() {
    super({ name: 'Newsroom', mission: 'Tell the city its own history', goal: 'Anniversary front page' });
  }

  @Step({ snapshotState: true })
  async research(): Promise<void> {
    const answer = await researcher.prompt(
      createPrompt({ name: 'find facts', user: 'Find facts about the harbour bridge opening.', responseFormat: z.object({ facts: z.array(z.string()) }) }),
    );
    this.facts = answer.facts;
  }

  @Step()
  async headline() {
    return writer.execute(
      createPrompt({
        name: 'write headline',
        user: 'Write the front-page headline.',
        responseFormat: z.object({ headline: z.string(), basedOn: z.array(z.string()) }),
      }),
    );
  }

  override async run() {
    await this.research();
    return this.headline();
  }
}

const newsroom = new Newsroom();
const { value, toolCalls } = await newsroom.run();

console.log('== what the introspection tools told the writer ==');
for (const call of toolCalls) {
  console.log(`\n-- ${call.name} ${JSON.stringify(call.input)}${call.isError ? ' (error)' : ''}`);
  let shown = call.output;
  try {
    shown = JSON.stringify(JSON.parse(call.output), null, 2);
  } catch {
    // Not JSON (an error message): print as it is.
  }
  console.log(shown);
}
console.log(`\nheadline: "${value.headline}" (based on: ${value.basedOn.join(', ')})`);

console.log('\n== tree ==');
console.log(new WorkflowTreeDebugger(newsroom).toTreeString());
assertScriptsComplete();
