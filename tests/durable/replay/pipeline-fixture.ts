import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { createAgent, createPrompt, createWorkflow, defineTool, type Workflow, type WorkflowContext } from 'groundswell';
import type { RunStore } from 'groundswell/durable';
import { signOffGoal } from 'groundswell/plans';
import { json, route, toolResults, toolUse, type ScriptedModel } from 'groundswell/testing';
import { agentModelSync } from '../../support/model-path.js';

/** Sent in a prompt and held in the gatherer's env: every recording and replay must mask it. */
export const SECRET = 'sk-live-7f3a9c2e1b44';

export const TOPICS = ['tides', 'winds', 'currents'] as const;
export const SECTIONS = 8;

/** The change a replay should catch (none: the code as recorded). */
export interface Variant {
  /** The user text of the second fan-out child's first angle. */
  readonly angle?: string;
  /** The final summary's answer schema gets a bound. */
  readonly strictSummary?: boolean;
  readonly dropFinal?: boolean;
  /** A step before the sign-off that the recording lacks. */
  readonly extraStep?: boolean;
  /** The lookup tool's description, changed. */
  readonly lookupDescription?: string;
  /** The run's token budget (the recording ran with 1,000,000; it spent 660). */
  readonly tokenBudget?: number;
}

const Facts = z.object({ facts: z.array(z.string()) });
const Note = z.object({ note: z.string() });
const Section = z.object({ text: z.string(), words: z.number() });
const Summary = z.object({ summary: z.string(), score: z.number() });
const StrictSummary = z.object({ summary: z.string(), score: z.number().min(0).max(1) });

const PLAN = `# Ocean report

## Goals

1. [/] goal: the report covers every topic
  - subtle failure mode: a topic is researched but left out of the draft
  - discriminator: draft.md names tides, winds and currents
  - evidence:
    - draft.md: "tides, winds, currents"

## Log
`;

/** A project directory for the judge: the plan and the evidence it reads (written by a step, so a replay starts from it too). */
function prepareProject(root: string): void {
  writeFileSync(join(root, 'PLAN.md'), PLAN);
  writeFileSync(join(root, 'draft.md'), `${TOPICS.join(', ')}\n`);
}

/**
 * The live model's script: answers by prompt, never by arrival order, so the fan-out's concurrent
 * requests get the same answers in any interleaving. The gatherer first asks for both tools.
 */
export function liveModel(make: (script: ReturnType<typeof route>) => ScriptedModel): ScriptedModel {
  return make(
    route({
      byPrompt: {
        Gather: (request) =>
          toolResults(request).length === 0
            ? toolUse([
                { name: 'lookup', input: { topic: 'sea' } },
                { name: 'audit', input: { what: 'gather' } },
              ])
            : json({ facts: ['salt', 'waves'] }),
        // The first of two concurrent angles answers last, so it settles (and is stored) second.
        'Angle one': json({ note: 'first angle' }, { delayMs: 25 }),
        'Angle two': json({ note: 'second angle' }),
        Note: json({ note: 'noted' }),
        Section: json({ text: 'a section', words: 120 }),
        Summarise: json({ summary: 'all topics', score: 0.9 }),
      },
    }),
  );
}

/** The judge's script: reads the evidence through its read-only tool, then accepts. */
export function liveJudge(make: (script: ReturnType<typeof route>) => ScriptedModel): ScriptedModel {
  return make((request) =>
    toolResults(request).length === 0 ? toolUse('read_file', { path: 'draft.md' }) : json({ review: 'draft.md names all three.\nVERDICT: accept\nmissing: ' }),
  );
}

export interface PipelineOptions {
  readonly store: RunStore;
  readonly runId: string;
  /** The project directory the judge reads. */
  readonly root: string;
  readonly model: ScriptedModel;
  readonly judge: ScriptedModel;
  readonly variant?: Variant;
  /** Each workflow the factory built, to check it settled. */
  readonly built?: Workflow[];
  /** Every event the built workflows emit, to check the secret stays masked. */
  readonly events?: unknown[];
}

/**
 * About twenty agent calls: a gatherer with a read and a mutate tool (its env holds the secret),
 * a fan-out of three child workflows each with two concurrent steps and a third, eight drafted
 * sections, a judge's sign-off of a plan goal and a summary, all under a budget.
 */
export function pipeline(options: PipelineOptions): () => Workflow<unknown> {
  const { model, judge, root, variant = {} } = options;
  const lookup = defineTool({
    name: 'lookup',
    description: variant.lookupDescription ?? 'Looks a topic up in the archive.',
    effect: 'read',
    input: z.object({ topic: z.string() }),
    execute: ({ topic }) => `archive entry on ${topic}`,
  });
  const audit = defineTool({
    name: 'audit',
    description: 'Writes an audit line.',
    effect: 'mutate',
    input: z.object({ what: z.string() }),
    // The tool's result carries the env's secret: the tree and the store must mask it.
    execute: ({ what }, ctx) => `audited ${what} with ${ctx.env.ARCHIVE_TOKEN ?? ''}`,
  });
  const gatherer = createAgent({ name: 'gatherer', ...agentModelSync(model), tools: [lookup, audit], env: { ARCHIVE_TOKEN: SECRET } });
  const researcher = createAgent({ name: 'researcher', ...agentModelSync(model) });
  const writer = createAgent({ name: 'writer', ...agentModelSync(model) });
  const ask = <T>(agent: typeof writer, user: string, schema: z.ZodType<T>) => agent.prompt(createPrompt({ user, responseFormat: schema }));

  const research = (topic: string, index: number) =>
    createWorkflow({ name: 'Research' }, async (ctx: WorkflowContext) => {
      const first = index === 1 && variant.angle !== undefined ? variant.angle : `Angle one on ${topic}`;
      // Two steps at once: their keys must not depend on which settles first.
      const [a, b] = await Promise.all([
        ctx.step('angle', () => ask(researcher, first, Note)),
        ctx.step('angle', () => ask(researcher, `Angle two on ${topic}`, Note)),
      ]);
      const note = await ctx.step('note', () => ask(researcher, `Note on ${topic}: ${a.note}; ${b.note}`, Note));
      return note.note;
    });

  return () => {
    const workflow = createWorkflow(
      { name: 'Pipeline', durable: { store: options.store, runId: options.runId }, budget: { tokens: variant.tokenBudget ?? 1_000_000, modelRequests: 60, toolCalls: 10 } },
      async (ctx: WorkflowContext) => {
        await ctx.step('prepare', () => prepareProject(root));
        const facts = await ctx.step('gather', () => ask(gatherer, `Gather facts on the sea. Archive token: ${SECRET}`, Facts));
        const notes = await ctx.spawnAll(TOPICS.map((topic, i) => research(topic, i)));
        let words = 0;
        for (let i = 0; i < SECTIONS; i++) {
          words += (await ctx.step('section', () => ask(writer, `Section ${i + 1} from ${facts.facts.join(', ')} and ${notes.join(' | ')}`, Section))).words;
        }
        if (variant.extraStep === true) await ctx.step('polish', () => 'polished');
        const signOff = await ctx.step('signoff', () => signOffGoal({ planPath: join(root, 'PLAN.md'), root, judge: agentModelSync(judge), now: () => new Date('2026-12-01T09:00:00Z') }, 'the report covers every topic'));
        const summary =
          variant.dropFinal === true
            ? undefined
            : await ctx.step('final', () => ask(writer, `Summarise ${words} words; judge said ${signOff.verdict}`, variant.strictSummary === true ? StrictSummary : Summary));
        return { words, notes, verdict: signOff.verdict, summary: summary?.summary ?? null };
      },
    );
    options.built?.push(workflow);
    const { events } = options;
    if (events !== undefined) workflow.addObserver({ onEvent: (event) => events.push(event) });
    return workflow;
  };
}

/** Agent calls the pipeline makes: gather, 3 children × 3, the sections, the judge, the summary. */
export const PIPELINE_CALLS = 1 + TOPICS.length * 3 + SECTIONS + 1 + 1;
