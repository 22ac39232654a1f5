/**
 * Example 3: one agent used by several workflows at the same time.
 *
 * - one Agent instance (with a tool) shared by three workflows run with Promise.all
 * - an agent holds configuration only: each call has its own conversation, tool calls, usage and
 *   overrides (one workflow passes its own `env`, the others do not see it)
 * - each call lands in the tree of the workflow that made it, whatever finishes first
 *
 * Offline by default (a scripted model); with ANTHROPIC_API_KEY set it calls the real API.
 * Run: npx tsx examples/03-one-agent-many-workflows.ts
 */
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, WorkflowTreeDebugger } from 'groundswell';
import { json, requestData, toolResults, toolUse } from 'groundswell/testing';
import { assertScriptsComplete, exampleClient, tokens } from './support/model.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

// Different lookup times make the three calls overlap and finish in another order than they began.
const FORECASTS: Record<string, { highC: number; rain: boolean; delayMs: number }> = {
  Oslo: { highC: 4, rain: true, delayMs: 30 },
  Cairo: { highC: 31, rain: false, delayMs: 5 },
  Lima: { highC: 22, rain: false, delayMs: 15 },
};

const lookupForecast = defineTool({
  name: 'lookup_forecast',
  description: "Tomorrow's forecast for a city: high temperature, its unit and whether it rains.",
  input: z.object({ city: z.string() }),
  execute: async ({ city }, { env }) => {
    const forecast = FORECASTS[city];
    if (forecast === undefined) throw new Error(`no forecast for ${city}`);
    await sleep(forecast.delayMs);
    // The unit comes from the calling prompt's env, which only that call sees.
    const fahrenheit = env.UNITS === 'fahrenheit';
    const high = fahrenheit ? Math.round((forecast.highC * 9) / 5 + 32) : forecast.highC;
    return { city, high, unit: fahrenheit ? 'F' : 'C', rain: forecast.rain };
  },
});

// Offline answers are keyed on the request, not on arrival order (concurrent calls interleave):
// no tool result yet → look up the prompt's city; otherwise answer from that conversation's result.
const client = exampleClient((request) => {
  const [result] = toolResults(request);
  if (result === undefined) return toolUse('lookup_forecast', { city: String(requestData(request).city) }, tokens(210, 24));
  const forecast = JSON.parse(result.content) as { city: string; high: number; unit: string; rain: boolean };
  const warm = forecast.unit === 'F' ? forecast.high >= 68 : forecast.high >= 20;
  const pack = [warm ? 'sunglasses' : 'warm jacket', ...(forecast.rain ? ['umbrella'] : [])];
  const summary = `${forecast.high}°${forecast.unit}${forecast.rain ? ', rain' : ''}`;
  return json({ city: forecast.city, forecast: summary, pack }, tokens(290, 40));
});

// The one shared agent.
const packer = createAgent({
  name: 'packer',
  system: 'You help travellers pack. Look up the forecast with lookup_forecast before answering.',
  tools: [lookupForecast],
  maxTurns: 4,
  client,
});

const packingPrompt = createPrompt({
  name: 'what to pack',
  user: 'What should I pack for tomorrow in this city? Check the forecast first.',
  responseFormat: z.object({ city: z.string(), forecast: z.string(), pack: z.array(z.string()).min(1) }),
});

function trip(city: string, env?: Record<string, string>) {
  return createWorkflow({ name: `Trip to ${city}` }, async (ctx) => {
    // execute() is prompt() plus what this call took: turns, tool calls, usage, duration.
    const prompt = packingPrompt.withData({ city });
    const result = await ctx.step('ask packer', () => packer.execute(prompt, env ? { env } : undefined));
    ctx.logger.info('packing list ready', { pack: result.value.pack });
    return result;
  });
}

const trips = [trip('Oslo'), trip('Cairo'), trip('Lima', { UNITS: 'fahrenheit' })];
const finished: string[] = [];
const results = await Promise.all(
  trips.map(async (workflow) => {
    const result = await workflow.run();
    finished.push(workflow.name);
    return result;
  }),
);

console.log(`started:  ${trips.map((w) => w.name).join(', ')}`);
console.log(`finished: ${finished.join(', ')}`);
console.log('\n== each workflow got its own answer ==');
for (const [i, { value, turns, toolCalls, usage }] of results.entries()) {
  const calls = toolCalls.map((call) => `${call.name}(${JSON.stringify(call.input)})`).join(', ');
  console.log(`${trips[i]?.name}: ${value.forecast} → pack ${value.pack.join(' + ')}`);
  console.log(`   ${turns} turns, tool calls: ${calls}, ${usage.inputTokens} in / ${usage.outputTokens} out tok`);
}

console.log('\n== trees: each holds only its own agent call ==');
for (const workflow of trips) console.log(new WorkflowTreeDebugger(workflow).toTreeString());
assertScriptsComplete();
