/**
 * Example 7: loops calling several agents, watched live.
 *
 * - a classifier agent called in a loop over support tickets, one step per ticket
 * - `enableCache: true`: the repeated ticket is answered from the cache (no model call, no tokens)
 * - a summariser agent that calls a local tool for each label, then answers
 * - a root observer printing agentPromptStart/End, toolInvocation and cacheHit/cacheMiss live
 * - `progressDisplay()` as plain lines: a summary of steps, agent calls, tokens and cost at the end
 * - the tree, getStats() (usage totals for the whole run) and the log string
 * - `otelObserver()` (groundswell/otel): the same run as OpenTelemetry spans (GenAI conventions),
 *   kept by an in-memory exporter and printed as the trace a tracing backend would show
 *
 * Offline by default (a scripted model); with ANTHROPIC_API_KEY set it calls the real API.
 * Run: npx tsx examples/07-loops-and-observability.ts
 */
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, progressDisplay, WorkflowTreeDebugger, type WorkflowEvent } from 'groundswell';
import { otelObserver } from 'groundswell/otel';
import { json, requestData, route, toolResults, toolUse } from 'groundswell/testing';
import { spanTree } from './support/span-tree.js';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { assertScriptsComplete, exampleClient, tokens } from './support/model.js';

const TICKETS = [
  'The app crashes when I log in.',
  'Please add a dark mode.',
  'I was charged twice this month.',
  'The app crashes when I log in.', // the same ticket again: a cache hit
];

const OWNERS: Record<string, string> = { bug: 'mobile team', feature: 'product', billing: 'finance' };

// Offline answers are routed by the calling agent (its system text), never by arrival order, since
// the classifier's calls run concurrently: the classifier by ticket text, the summariser by turn.
const CLASSES: Record<string, { label: 'bug' | 'feature' | 'billing'; urgency: number }> = {
  'The app crashes when I log in.': { label: 'bug', urgency: 5 },
  'Please add a dark mode.': { label: 'feature', urgency: 2 },
  'I was charged twice this month.': { label: 'billing', urgency: 4 },
};
const client = exampleClient(
  route({
    byAgent: {
      'You triage support tickets': (request) => json(CLASSES[String(requestData(request).ticket)], tokens(95, 12)),
      'You write short action lists': (request) => {
        if (toolResults(request).length === 0) {
          const tickets = requestData(request, z.object({ tickets: z.array(z.object({ label: z.string() })) })).tickets;
          const labels = [...new Set(tickets.map((t) => t.label))];
          return toolUse(labels.map((label) => ({ name: 'find_owner', input: { label } })), tokens(240, 60));
        }
        return json(
          {
            headline: 'Login crash is the top priority',
            actions: ['mobile team: fix the login crash', 'finance: refund the double charge', 'product: consider dark mode'],
          },
          tokens(330, 48),
        );
      },
    },
  }),
);

const classifier = createAgent({
  name: 'classifier',
  system: 'You triage support tickets.',
  model: 'claude-haiku-4-5',
  enableCache: true,
  client,
});

const findOwner = defineTool({
  name: 'find_owner',
  description: 'The team that owns tickets with this label.',
  input: z.object({ label: z.enum(['bug', 'feature', 'billing']) }),
  execute: ({ label }) => OWNERS[label] ?? 'unassigned',
});
const summariser = createAgent({
  name: 'summariser',
  system: 'You write short action lists for support leads. Find each label owner with find_owner.',
  tools: [findOwner],
  client,
});

const classify = createPrompt({
  name: 'classify',
  user: 'Classify this support ticket and rate its urgency from 1 to 5.',
  responseFormat: z.object({ label: z.enum(['bug', 'feature', 'billing']), urgency: z.number().int().min(1).max(5) }),
});
const summarise = createPrompt({
  name: 'summarise',
  user: 'Summarise these classified tickets as a headline and one action per owner.',
  responseFormat: z.object({ headline: z.string(), actions: z.array(z.string()).min(1) }),
});

const triage = createWorkflow({ name: 'Triage' }, async (ctx) => {
  const classified: { ticket: string; label: string; urgency: number }[] = [];
  for (const [i, ticket] of TICKETS.entries()) {
    const answer = await ctx.step(`ticket ${i + 1}`, () => classifier.prompt(classify.withData({ ticket })));
    ctx.logger.info(`ticket ${i + 1}: ${answer.label}`, { urgency: answer.urgency });
    classified.push({ ticket, ...answer });
  }
  const summary = await ctx.step('summary', () => summariser.prompt(summarise.withData({ tickets: classified })));
  ctx.logger.info(summary.headline, { actions: summary.actions });
  return summary;
});

/** One line for the agent events; null for the rest. */
function describe(event: WorkflowEvent): string | null {
  switch (event.type) {
    case 'agentPromptStart':
      return `▶ ${event.agentName} asks ${event.model}`;
    case 'agentPromptEnd': {
      if (event.cached) return `■ ${event.agentName} ${event.status}: from cache`;
      const { inputTokens, outputTokens } = event.usage;
      return `■ ${event.agentName} ${event.status}: ${event.turns} turn(s), ${inputTokens} in / ${outputTokens} out tok`;
    }
    case 'toolInvocation':
      return `  tool ${event.toolName}(${JSON.stringify(event.input)}) → ${event.output}`;
    case 'cacheHit':
      return `  cache hit  key …${event.key.slice(-10)}`;
    case 'cacheMiss':
      // No key when caching was off for the call or it streamed; `differs` names what changed.
      return `  cache miss key …${event.key?.slice(-10) ?? '-'} (${event.reason}${event.differs ? `: ${event.differs.join(', ')} differ` : ''})`;
    default:
      return null;
  }
}

triage.addObserver({
  onEvent: (event) => {
    const line = describe(event);
    if (line !== null) console.log(`  event ${line}`);
  },
});

// The progress display as plain lines (this example prints events live, which a region redrawn in
// place would overwrite): finished workflows, failures, and a summary with tokens and cost at the end.
triage.addObserver(progressDisplay({ stream: process.stdout, isTTY: false }));

// OpenTelemetry: spans kept in memory here; an OTLP exporter would send them to a collector.
const spans = new InMemorySpanExporter();
triage.addObserver(await otelObserver({ tracerProvider: new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }) }));

console.log('== events as they arrive ==');
const summary = await triage.run();
console.log(`\nheadline: ${summary.headline}`);
for (const action of summary.actions) console.log(`- ${action}`);

const debug = new WorkflowTreeDebugger(triage);
console.log('\n== tree ==');
console.log(debug.toTreeString());
const stats = debug.getStats();
console.log('\n== stats ==');
console.log(`nodes by kind: ${JSON.stringify(stats.byKind)}`);
console.log(`usage: ${JSON.stringify(stats.usage)}`);
console.log('\n== logs ==');
console.log(debug.toLogString());
console.log('\n== OpenTelemetry spans (in-memory exporter) ==');
console.log(spanTree(spans.getFinishedSpans()));
assertScriptsComplete();
