import { basename } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import { markFresh } from '../agent/fresh-start.js';
import { readOnlyTools } from '../file-tools/read-only-tools.js';
import { writeFileAtomically } from '../util/atomic-write.js';
import { defineTool, type Tool } from '../tools/tool.js';
import { validatePlanDrafterOptions, validatePlanDraftingPaths } from './plan-drafter-options.schema.js';
import { PLAN_DRAFTING_SYSTEM } from './plan-texts.js';
import type { LanguageModelLike } from '../agent/model/language-model.js';
import type { ModelProviders } from '../types/model-providers.js';

export interface PlanDrafterOptions {
  name?: string;
  /** The project the drafter may explore (read-only). */
  root: string;
  /** The only file the drafter may write. */
  planPath: string;
  client?: Anthropic;
  /** An Anthropic model id, a `provider/model` name, or an AI SDK language model (any provider). */
  model?: string | LanguageModelLike;
  /** Providers for a `provider/model` name; inside a workflow, the workflow's serve too. */
  providers?: ModelProviders;
}

/**
 * Tools for drafting a plan: read-only exploration confined to `root`, and `write_plan`, which can
 * write the plan file and nothing else. There is no other write or run tool to refuse.
 */
export function planDraftingTools(root: string, planPath: string): Tool[] {
  validatePlanDraftingPaths(root, planPath);
  const writePlan = defineTool({
    name: 'write_plan',
    description: 'Write the whole plan file. This is the only file you can write.',
    effect: 'mutate',
    target: () => planPath,
    input: z.object({ content: z.string().min(1).describe('The complete plan file, in markdown.') }),
    async execute({ content }) {
      await writeFileAtomically(planPath, content);
      return `Wrote ${basename(planPath)} (${content.length} characters).`;
    },
  });
  return [...readOnlyTools(root), writePlan];
}

/**
 * An agent that explores read-only, then writes the plan file and nothing else. It starts fresh:
 * called from inside another agent's run, it gets no slice of that run.
 */
export function createPlanDrafter(options: PlanDrafterOptions): Agent {
  validatePlanDrafterOptions(options);
  return markFresh(
    new Agent({
      name: options.name ?? 'planner',
      system: PLAN_DRAFTING_SYSTEM,
      tools: planDraftingTools(options.root, options.planPath),
      maxTurns: 20,
      ...(options.client ? { client: options.client } : {}),
      ...(options.model ? { model: options.model } : {}),
      ...(options.providers ? { providers: options.providers } : {}),
    }),
  );
}
