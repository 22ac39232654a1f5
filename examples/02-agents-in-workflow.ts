/**
 * Example 2: a workflow whose steps call agents with different prompts.
 *
 * - two agents (different system prompts and models) sharing one client
 * - three prompts, each with its own zod schema: every answer is validated and typed
 * - `data` sent with a prompt, and `withData()` filling a prompt with an earlier step's result
 * - the override cascade: prompt `system` > call overrides (`model`, `maxTokens`) > agent config
 * - each call lands as an agentPrompt node under its step, with token usage and cost (`pricing`)
 *
 * Offline by default (a scripted model); with ANTHROPIC_API_KEY set it calls the real API.
 * Run: npx tsx examples/02-agents-in-workflow.ts
 */
import { z } from 'zod';
import { AGENT_DEFAULTS, createAgent, createPrompt, ObservedState, Step, Workflow, WorkflowTreeDebugger } from 'groundswell';
import { json } from 'groundswell/testing';
import { assertScriptsComplete, exampleClient, tokens } from './support/model.js';

const FAST_MODEL = 'claude-haiku-4-5';

// The three answers, in the order the steps ask (the steps run one after another, so a plain
// ordered script is enough). Token counts are made up but distinct, to make the rollups readable.
const client = exampleClient([
  json(
    {
      features: [
        { name: 'Offline mode', benefit: 'Keep working on a plane' },
        { name: 'Shared boards', benefit: 'Plan together in real time' },
      ],
    },
    tokens(310, 64),
  ),
  json({ tagline: 'Plan anywhere, together.', tone: 'playful' }, tokens(120, 18)),
  json({ ship: true, risks: [{ area: 'sync conflicts on shared boards', severity: 'medium' }] }, tokens(260, 55)),
]);

// US dollars per million tokens (illustrative); cost is computed for the models listed here.
const pricing = {
  [AGENT_DEFAULTS.model]: { inputPerMTok: 3, outputPerMTok: 15 },
  [FAST_MODEL]: { inputPerMTok: 1, outputPerMTok: 5 },
};

const writer = createAgent({ name: 'writer', system: 'You write product copy. Be concise.', client, pricing });
const reviewer = createAgent({
  name: 'reviewer',
  system: 'You are a cautious release manager.',
  model: FAST_MODEL,
  client,
  pricing,
});

const featuresPrompt = createPrompt({
  name: 'extract features',
  user: 'List the user-facing features in these release notes.',
  responseFormat: z.object({ features: z.array(z.object({ name: z.string(), benefit: z.string() })).min(1) }),
});

// A prompt-level `system` beats the agent's; its data is filled in later with withData().
const taglinePrompt = createPrompt({
  name: 'tagline',
  user: 'Write one tagline for a release with these features.',
  system: 'You write punchy taglines of at most eight words.',
  responseFormat: z.object({ tagline: z.string().max(80), tone: z.enum(['playful', 'serious', 'technical']) }),
});

const reviewPrompt = createPrompt({
  name: 'release review',
  user: 'Should we ship this release? List the risks.',
  responseFormat: z.object({
    ship: z.boolean(),
    risks: z.array(z.object({ area: z.string(), severity: z.enum(['low', 'medium', 'high']) })),
  }),
});

class LaunchWorkflow extends Workflow {
  @ObservedState() features: string[] = [];
  @ObservedState() tagline = '';
  @ObservedState() ship = false;

  constructor(private readonly notes: string) {
    super('Launch');
  }

  @Step()
  async extractFeatures(): Promise<void> {
    const answer = await writer.prompt(featuresPrompt.withData({ notes: this.notes }));
    this.features = answer.features.map((feature) => feature.name);
    for (const { name, benefit } of answer.features) console.log(`  feature: ${name} — ${benefit}`);
  }

  @Step()
  async writeTagline(): Promise<void> {
    // Call overrides sit between the prompt and the agent: a cheaper model and a small budget.
    const overrides = { model: FAST_MODEL, maxTokens: 200 };
    const settings = writer.resolve(taglinePrompt, overrides);
    console.log(`  the tagline call uses model ${settings.model} and system "${settings.system ?? ''}"`);
    const answer = await writer.prompt(taglinePrompt.withData({ features: this.features }), overrides);
    this.tagline = answer.tagline;
    console.log(`  tagline: "${answer.tagline}" (tone: ${answer.tone})`);
  }

  @Step({ snapshotState: true })
  async reviewRelease(): Promise<void> {
    const answer = await reviewer.prompt(reviewPrompt.withData({ notes: this.notes, tagline: this.tagline }));
    this.ship = answer.ship;
    console.log(`  ship: ${answer.ship}; risks: ${answer.risks.map((r) => `${r.area} (${r.severity})`).join(', ')}`);
  }

  override async run(): Promise<void> {
    await this.extractFeatures();
    await this.writeTagline();
    await this.reviewRelease();
  }
}

const launch = new LaunchWorkflow('v2.0: works offline; boards can be shared and edited live.');
console.log('== typed answers, as each step gets them ==');
await launch.run();

const debug = new WorkflowTreeDebugger(launch);
console.log(`total cost: $${(debug.getStats().usage.costUsd ?? 0).toFixed(4)}`);
console.log('\n== tree (agentPrompt nodes with tokens and cost, rolled up to steps and workflow) ==');
console.log(debug.toTreeString());
assertScriptsComplete();
