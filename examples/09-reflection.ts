/**
 * Example 9: reflection at prompt, agent and workflow level.
 *
 * A failed attempt triggers a reflection pass: a `reflection` node (with reflectionStart/End) whose
 * critique and revision (guidance for the system prompt, optionally a rewritten request) are applied
 * to the retry. Bounded by `maxAttempts`; auth and invalid-request errors are never retried.
 *
 * - agent level: `createAgent({ enableReflection: true })`; the answer has the wrong shape (a price
 *   as text), the agent's reflection says how to fix it, and the retry succeeds
 * - prompt level: `createPrompt({ enableReflection: true })` on a prompt for an agent without it;
 *   a cut-off JSON answer is reflected on, and the retry gets a rewritten request
 * - workflow level: `createWorkflow({ enableReflection: { agent } })`; a step whose check fails is
 *   reflected on by the workflow's reflector and run again, its agent call carrying the guidance
 *   (the step body can read it as `ctx.reflection.guidance`)
 *
 * The tree shows each reflection where it happened: under the agentPrompt node for prompt and agent
 * level, under the step for workflow level.
 *
 * Offline by default (a scripted model); with ANTHROPIC_API_KEY set it calls the real API (the
 * first attempts may then succeed, and no reflection is needed).
 * Run: npx tsx examples/09-reflection.ts
 */
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, WorkflowTreeDebugger } from 'groundswell';
import { json, malformedJson, type RecordedRequest } from 'groundswell/testing';
import { assertScriptsComplete, exampleClient, online, tokens } from './support/model.js';

const LISTING = 'Aurora X2 — 14" laptop, 1.1 kg, 18 h battery. Now €1,299.';
const HEADLINE_LIMIT = 60;

// Every answer in order, reflections included (the steps run one after another).
const SCRIPT = [
  // agent level: the price comes back as text, the reflection asks for a number, the retry obeys
  json({ product: 'Aurora X2', price: '€1,299' }, tokens(150, 20)),
  json(
    {
      critique: 'The price was given as text with a currency sign; the schema wants a number.',
      revisedUser: null,
      guidance: 'Give price as a plain number in euros, e.g. 1299.',
    },
    tokens(320, 45),
  ),
  json({ product: 'Aurora X2', price: 1299 }, tokens(170, 18)),
  // prompt level: the answer is cut off mid-JSON, the reflection rewrites the request
  malformedJson('{"category": "laptop", "reason": "A portable computer that', tokens(140, 40)),
  json(
    {
      critique: 'The answer ran long and was cut off before the JSON was complete.',
      revisedUser: 'Classify the product into one category. Answer with a very short reason.',
      guidance: 'Keep reason under eight words.',
    },
    tokens(300, 50),
  ),
  json({ category: 'laptop', reason: 'Portable computer with keyboard' }, tokens(160, 14)),
  // workflow level: the headline is too long, the step fails its check, the workflow reflects
  json({ headline: 'Meet the Aurora X2, the featherweight laptop with an 18-hour battery, for €1,299' }, tokens(130, 22)),
  json(
    {
      critique: `The headline was longer than the ${HEADLINE_LIMIT}-character limit the step enforces.`,
      revisedUser: null,
      guidance: `Keep the headline under ${HEADLINE_LIMIT} characters: product name and one benefit.`,
    },
    tokens(280, 40),
  ),
  json({ headline: 'Aurora X2: 18 hours of battery in 1.1 kg' }, tokens(150, 14)),
];
// Offline, the responder also keeps every request, so the example can show what each retry sent.
const sent: RecordedRequest[] = [];
const client = exampleClient((request, index) => {
  sent.push(request);
  const step = SCRIPT[index];
  if (step === undefined) throw new Error(`no scripted answer for request #${index + 1}`);
  return step;
});

// Agent level: every call of this agent reflects on a failure (default maxAttempts 2).
const extractor = createAgent({ name: 'extractor', system: 'You read product listings.', client, enableReflection: true });
// No reflection of its own: the classify prompt turns it on for that one prompt.
const classifier = createAgent({ name: 'classifier', system: 'You sort products into categories.', client });
const copywriter = createAgent({ name: 'copywriter', system: 'You write product headlines.', client });
// Workflow level: who reflects on a failed step.
const coach = createAgent({ name: 'coach', client });

const extract = createPrompt({
  name: 'extract',
  user: 'Extract the product name and its price.',
  responseFormat: z.object({ product: z.string(), price: z.number() }),
});
const classify = createPrompt({
  name: 'classify',
  user: 'Classify the product and explain why.',
  responseFormat: z.object({ category: z.enum(['laptop', 'phone', 'tablet', 'other']), reason: z.string() }),
  maxTokens: 200,
  enableReflection: true, // prompt level
});
const headline = createPrompt({
  name: 'headline',
  user: 'Write a headline for the product page.',
  responseFormat: z.object({ headline: z.string() }),
});

const page = createWorkflow({ name: 'Product page', enableReflection: { agent: coach, maxAttempts: 2 } }, async (ctx) => {
  const facts = await ctx.step('extract', () => extractor.prompt(extract.withData({ listing: LISTING })));
  console.log(`  extracted: ${facts.product}, ${facts.price} EUR`);

  const kind = await ctx.step('classify', () => classifier.prompt(classify.withData({ listing: LISTING })));
  console.log(`  category: ${kind.category} (${kind.reason})`);

  const title = await ctx.step('headline', async () => {
    const guidance = ctx.reflection.guidance;
    if (guidance.length > 0) console.log(`  headline retry, with guidance: ${guidance.join(' / ')}`);
    const answer = await copywriter.prompt(headline.withData({ ...facts, category: kind.category }));
    if (answer.headline.length > HEADLINE_LIMIT) {
      throw new Error(`the headline is ${answer.headline.length} characters; the limit is ${HEADLINE_LIMIT}`);
    }
    return answer.headline;
  });
  return title;
});

page.addObserver({
  onEvent: (event) => {
    if (event.type === 'reflectionStart') {
      console.log(`  event reflectionStart [${event.level}] attempt ${event.attempt}: ${event.error.name}: ${event.error.message}`);
    } else if (event.type === 'reflectionEnd' && event.revision !== undefined) {
      const rewritten = event.revision.user === null ? 'request kept' : `request rewritten to "${event.revision.user}"`;
      console.log(`  event reflectionEnd   [${event.level}] critique: ${event.critique ?? ''}`);
      console.log(`        revision: ${rewritten}; guidance "${event.revision.guidance}"`);
    } else if (event.type === 'stepRetry') {
      console.log(`  event stepRetry "${event.name}" after attempt ${event.attempt}`);
    }
  },
});

console.log('== the run, with reflection events as they arrive ==');
try {
  console.log(`\nheadline: ${await page.run()}`);
} catch (error) {
  // Only against the real API: a retry can fail again, and then the step (and the run) fails.
  console.log(`\nthe run failed: ${error instanceof Error ? error.message : String(error)}`);
}

if (!online) {
  if (sent.length !== SCRIPT.length) throw new Error(`expected ${SCRIPT.length} requests, got ${sent.length}`);
  console.log('\n== what the retries sent: the revision applied ==');
  for (const request of sent) {
    const system = typeof request.body.system === 'string' ? [] : (request.body.system ?? []);
    const lessons = system.find((block) => block.text.startsWith('# Lessons from a failed attempt'));
    if (lessons === undefined) continue;
    console.log(`request #${request.index + 1}, user: "${(request.firstUserText ?? '').split('\n')[0]}"`);
    console.log(lessons.text.replace(/^/gm, '  '));
  }
}

console.log('\n== tree (reflections at prompt and agent level under the call, at workflow level under the step) ==');
console.log(new WorkflowTreeDebugger(page).toTreeString());
assertScriptsComplete();
