/**
 * Example 6: dynamic prompt replacement based on output.
 *
 * - a writer agent drafts a summary of release notes; the workflow judges the answer in plain code
 *   (too few words, or the model's own confidence too low)
 * - a weak answer is replaced with `ctx.replaceLastPromptResult(prompt, agent)`: the agent is asked
 *   again with a sharper prompt, and the new call takes the old one's place in the tree, with the old
 *   call beneath it ("replaces the answer below"): a replacement, not a fork
 * - a `promptReplaced` event names the replaced node; `ctx.lastPromptResult` and the later step see
 *   the new value
 *
 * Offline by default (a scripted model); with ANTHROPIC_API_KEY set it calls the real API (the
 * first answer may then be good enough, and nothing is replaced).
 * Run: npx tsx examples/06-dynamic-prompt-replacement.ts
 */
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, WorkflowTreeDebugger } from 'groundswell';
import { json } from 'groundswell/testing';
import { assertScriptsComplete, exampleClient, tokens } from './support/model.js';

const NOTES = [
  'Sync is now three times faster on large boards.',
  'Drafts can be written offline and are synced later.',
  'Fixed: the app crashed at login on some Android phones.',
].join('\n');

// The three answers, in order: a weak first draft, the stronger one asked for instead, the post.
const client = exampleClient([
  json({ summary: 'Bug fixes and improvements.', confidence: 0.4 }, tokens(180, 16)),
  json(
    {
      summary: 'Version 2.3 syncs large boards three times faster, lets you write drafts offline, and fixes the Android login crash.',
      confidence: 0.9,
    },
    tokens(260, 42),
  ),
  json({ post: 'v2.3 is out: 3x faster sync, offline drafts, and no more Android login crash.' }, tokens(140, 24)),
]);

const writer = createAgent({ name: 'writer', system: 'You write release communication. Be concrete.', client });

const Summary = z.object({ summary: z.string(), confidence: z.number().min(0).max(1) });

const summarise = createPrompt({
  name: 'summarise',
  user: 'Summarise these release notes in one sentence, and rate your confidence from 0 to 1.',
  responseFormat: Summary,
});
const summariseAgain = createPrompt({
  name: 'summarise (sharper)',
  user:
    'Your earlier summary was too vague. Write one sentence that names every change in the notes ' +
    'concretely (what got faster, what is new, what was fixed). Rate your confidence from 0 to 1.',
  responseFormat: Summary,
});
const announce = createPrompt({
  name: 'announce',
  user: 'Write a short social media post (under 200 characters) from this summary.',
  responseFormat: z.object({ post: z.string() }),
});

/** Why an answer is too weak to use; empty when it is good enough. */
function weaknesses({ summary, confidence }: z.output<typeof Summary>): string[] {
  const reasons: string[] = [];
  const words = summary.split(/\s+/).filter(Boolean).length;
  if (words < 8) reasons.push(`only ${words} words`);
  if (confidence < 0.7) reasons.push(`confidence ${confidence}`);
  return reasons;
}

const release = createWorkflow({ name: 'Release post' }, async (ctx) => {
  const draft = await ctx.step('draft summary', () => writer.prompt(summarise.withData({ notes: NOTES })));
  console.log(`first answer: "${draft.summary}" (confidence ${draft.confidence})`);

  const reasons = weaknesses(draft);
  if (reasons.length > 0) {
    console.log(`too weak (${reasons.join(', ')}): asking again, replacing the first answer`);
    // The new call lands where the first one was; the first one hangs beneath it.
    await ctx.replaceLastPromptResult(summariseAgain.withData({ notes: NOTES, weakAnswer: draft.summary }), writer);
  } else {
    console.log('good enough: nothing to replace');
  }

  // Later work reads the latest answer: after a replacement, that is the new one.
  const { summary } = Summary.parse(ctx.lastPromptResult);
  console.log(`summary in use: "${summary}"`);
  const { post } = await ctx.step('announce', () => writer.prompt(announce.withData({ summary })));
  return post;
});

release.addObserver({
  onEvent: (event) => {
    if (event.type === 'promptReplaced') console.log(`  event promptReplaced: node ${event.nodeId} replaces ${event.replacedNodeId}`);
  },
});

const post = await release.run();
console.log(`\npost: ${post}`);

console.log('\n== tree (the replacement sits in the first answer’s place, the first answer beneath it) ==');
console.log(new WorkflowTreeDebugger(release).toTreeString());
assertScriptsComplete();
