/**
 * Example 11: goal ancestry, the `# Why You're Here` section.
 *
 * - three nested workflows declare why they exist: a functional outer one the `mission`, a
 *   class-based middle one the `project` (through its config: `new Release({ name, project })`),
 *   an inner one the `goal`
 * - every agent call inside them gets a `# Why You're Here` section in its system prompt, built
 *   from the chain (nearest declaration per level wins); nothing is passed by hand
 * - agent calls at two depths: the planner in the middle workflow (mission + project), the writer
 *   in the inner one (mission + project + goal, plus a `task` set explicitly on the agent)
 * - the system is sent as text blocks [identity, why], with `cache_control` on the why block so
 *   the API's prompt cache can reuse it; without any ancestry it stays the plain string
 * - the tree records the ancestry of each agent call and shows it as a `why` line
 *
 * Offline by default (a scripted model): prints the `system` of each request as sent. With
 * ANTHROPIC_API_KEY set it calls the real API and prints the ancestry recorded in the events.
 * Run: npx tsx examples/11-goal-ancestry.ts
 */
import type { TextBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { z } from 'zod';
import {
  createAgent,
  createPrompt,
  createWorkflow,
  Step,
  Workflow,
  WorkflowTreeDebugger,
  type GoalAncestry,
} from 'groundswell';
import { json, type RecordedRequest } from 'groundswell/testing';
import { assertScriptsComplete, exampleClient, online, tokens } from './support/model.js';

// Offline, the responder keeps every request so the example can show what was sent.
const sent: RecordedRequest[] = [];
const client = exampleClient((request) => {
  sent.push(request);
  if (request.firstUserText?.startsWith('Plan')) {
    return json({ steps: ['Collect merged pull requests', 'Group them by area', 'Write the changelog'] }, tokens(180, 30));
  }
  return json({ entry: 'Agents now know why they run: a "Why You\'re Here" section in every prompt.' }, tokens(240, 28));
});

const planner = createAgent({ name: 'planner', system: 'You plan release work in a few short steps.', client });
// `task` is never derived from workflows; it is set on the agent when there is one.
const writer = createAgent({
  name: 'writer',
  system: 'You write changelog entries: one sentence, user-facing.',
  goalAncestry: { task: 'Draft the headline entry' },
  client,
});

const planPrompt = createPrompt({
  name: 'plan release',
  user: 'Plan the work for this release.',
  responseFormat: z.object({ steps: z.array(z.string()).min(1) }),
});
const entryPrompt = createPrompt({
  name: 'changelog entry',
  user: 'Write the headline changelog entry for this release.',
  responseFormat: z.object({ entry: z.string().min(1) }),
});

/** The middle workflow: class-based, its `project` comes in through the config it is built with. */
class Release extends Workflow<string> {
  @Step()
  async plan(): Promise<string[]> {
    return (await planner.prompt(planPrompt)).steps;
  }

  @Step()
  async writeChangelog(): Promise<string> {
    // The inner workflow declares only its goal; run inside this step, it mounts under it.
    const changelog = createWorkflow({ name: 'Changelog', goal: 'Publish a changelog users can skim in a minute' }, (ctx) =>
      ctx.step('draft entry', () => writer.prompt(entryPrompt)),
    );
    return (await changelog.run()).entry;
  }

  override async run(): Promise<string> {
    const steps = await this.plan();
    this.logger.info('planned', { steps });
    return this.writeChangelog();
  }
}

const company = createWorkflow({ name: 'Company', mission: 'Make agent workflows easy to trust' }, (ctx) =>
  ctx.step('ship release', () => ctx.spawnWorkflow(new Release({ name: 'Release 2.0', project: 'groundswell 2.0' }))),
);

// Every agentPromptStart event carries the ancestry that call used (when it had one).
const used: Array<{ agent: string; ancestry: GoalAncestry | undefined }> = [];
company.addObserver({
  onEvent: (event) => {
    if (event.type === 'agentPromptStart') used.push({ agent: event.agentName, ancestry: event.goalAncestry });
  },
});

const entry = await company.run();
console.log(`changelog entry: ${entry}`);

function printSystem(system: string | readonly TextBlockParam[] | undefined): void {
  if (system === undefined) return console.log('   (no system)');
  if (typeof system === 'string') return console.log(`   plain string: ${JSON.stringify(system)}`);
  for (const [i, block] of system.entries()) {
    const cache = block.cache_control ? `  (cache_control: ${block.cache_control.type})` : '';
    console.log(`   block ${i + 1}${cache}:`);
    for (const line of block.text.split('\n')) console.log(`     | ${line}`);
  }
}

if (!online) {
  console.log('\n== the system prompt of each request, as sent ==');
  for (const request of sent) {
    console.log(`request #${request.index + 1}: ${request.firstUserText}`);
    printSystem(request.body.system);
  }
} else {
  console.log('\n== the ancestry of each agent call (from the agentPromptStart events) ==');
  for (const { agent, ancestry } of used) console.log(`${agent}: ${JSON.stringify(ancestry ?? {})}`);
}

if (!online) {
  // Outside any workflow, with no ancestry of its own, the planner sends its system unchanged.
  await planner.prompt(planPrompt);
  console.log('\n== outside any workflow: no section, the plain system string ==');
  printSystem(sent.at(-1)?.body.system);
}

console.log('\n== tree: each agent call shows the ancestry it used ==');
console.log(new WorkflowTreeDebugger(company).toTreeString());
assertScriptsComplete();
