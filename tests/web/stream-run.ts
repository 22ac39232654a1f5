import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, type Workflow } from 'groundswell';
import type { RunStore } from 'groundswell/durable';
import { json, ScriptedModel, stream } from 'groundswell/testing';

/** What the research run's agent answers every call with: long enough to come in many pieces. */
export const SECTION = 'The sea rises and falls twice a day, pulled by the moon.';
export const SECTIONS = 6;

/** A durable run of SECTIONS steps, each one agent call streaming its answer; the model waits `delayMs` before each answer. */
export function researchRun(store: RunStore, runId: string, delayMs: number): Workflow<number> {
  const model = new ScriptedModel(() => stream(json({ answer: SECTION }), { chunkSize: 4, delayMs }));
  const agent = createAgent({ name: 'writer', client: model.client(), enableCache: false });
  return createWorkflow({ name: 'research', streamText: true, durable: { store, runId } }, async (ctx) => {
    for (let i = 0; i < SECTIONS; i += 1) await ctx.step(`section ${i}`, () => agent.prompt(createPrompt({ user: `section ${i}`, responseFormat: z.object({ answer: z.string() }) })));
    return SECTIONS;
  });
}
