import { readFile } from 'node:fs/promises';
import { basename, relative } from 'node:path';
import type Anthropic from '@anthropic-ai/sdk';
import { z } from 'zod';
import { Agent } from '../agent/agent.js';
import type { Pricing } from '../agent/pricing.js';
import type { Cache } from '../cache/cache.js';
import { markFresh } from '../agent/fresh-start.js';
import { currentScope } from '../core/scope.js';
import { parseVerdict } from '../file-tools/parse-verdict.js';
import { readOnlyTools } from '../file-tools/read-only-tools.js';
import { appendLog, findGoal, setGoalStatus } from '../plan-files/index.js';
import { createPrompt } from '../agent/prompt.js';
import { defineTool, type Tool } from '../tools/tool.js';
import { writeFileAtomically } from '../util/atomic-write.js';
import { errorMessage } from '../util/describe.js';
import { validateCompleteGoalOptions, validateGoalQuery } from './complete-goal-options.schema.js';
import { COMPLETE_GOAL_DESCRIPTION, JUDGE_SYSTEM, judgeRequest } from './plan-texts.js';
import type { LanguageModelLike } from '../agent/model/language-model.js';
import type { ModelProviders } from '../types/model-providers.js';

export interface CompleteGoalOptions {
  /** The plan file (markdown). */
  planPath: string;
  /** The project root the judge may read (nothing outside it, nothing written, nothing run). */
  root: string;
  /** The judge's agent settings; a fresh judge agent is made for every sign-off. */
  judge: JudgeSettings;
  /** Time of the sign-off log line (default now). */
  now?: () => Date;
}

/**
 * What the judge agent is built with. Its calls mount under the step (or tool call) the sign-off
 * runs in, so with `pricing` its tokens and cost roll up into that workflow's usage.
 */
export interface JudgeSettings {
  client?: Anthropic;
  /** An Anthropic model id, a `provider/model` name, or an AI SDK language model (any provider). */
  model?: string | LanguageModelLike;
  /** Providers for a `provider/model` name; inside a workflow, the workflow's serve too. */
  providers?: ModelProviders;
  maxTokens?: number;
  /** Prices per model, so the judge's usage carries a cost like the worker's. */
  pricing?: Pricing;
  /**
   * Reuse a judge answer for an identical request. Off by default: the request holds the plan but
   * not the files the judge reads, so a cached verdict can outlive a change to those files.
   */
  enableCache?: boolean;
  /** Where `enableCache` stores answers; default an in-memory store per judge agent. */
  cache?: Cache;
}

/** What a sign-off decided; also the payload of the `goalSignOff` event. */
export interface SignOff {
  readonly goal: string;
  readonly verdict: 'accept' | 'reject';
  readonly missing: string;
  /** The judge could not give a verdict (it failed or answered out of form): signed off, and said so. */
  readonly judgeFailed: boolean;
  readonly planPath: string;
}

const JudgeAnswer = z.object({
  review: z.string().describe('Your review, ending with the VERDICT and missing lines exactly as instructed.'),
});

/**
 * The `CompleteGoal` tool: a fresh, read-only judge that never sees the working agent's
 * transcript checks the goal's evidence. On accept (or when the judge fails, said in the log line)
 * the goal is ticked `[x]` and a sign-off line appended to `## Log`; on reject the goal stays open
 * and the result says what is missing. The plan is re-read before it is edited, so changes made
 * while the judge worked are kept.
 */
export function completeGoalTool(options: CompleteGoalOptions): Tool {
  validateCompleteGoalOptions(options, 'completeGoalTool');
  return defineTool({
    name: 'CompleteGoal',
    description: COMPLETE_GOAL_DESCRIPTION,
    input: z.object({ goal: z.string().min(1).describe('The goal text: the line after "goal:" in the plan file.') }),
    async execute({ goal: query }) {
      const signOff = await signOffGoal(options, query);
      if (signOff.verdict === 'reject') return `Rejected: the goal stays open. Missing: ${signOff.missing || '(the judge gave no reason)'}`;
      return signOff.judgeFailed
        ? `Signed off without a verdict (the judge failed: ${signOff.missing}); the goal is ticked [x] and the log says so.`
        : 'Accepted: the goal is ticked [x] and a sign-off line was added to ## Log.';
    },
  });
}

/**
 * The sign-off itself, for the `CompleteGoal` tool and for workflow code alike (call it from a
 * step: the judge's call mounts under it and the `goalSignOff` event lands there). Throws a
 * `PlanGoalNotFoundError` when the goal text matches no goal.
 */
export async function signOffGoal(options: CompleteGoalOptions, query: string): Promise<SignOff> {
  validateCompleteGoalOptions(options, 'signOffGoal');
  validateGoalQuery(query);
  const plan = await readFile(options.planPath, 'utf8');
  const goal = findGoal(plan, query);
  const planRel = relative(options.root, options.planPath) || basename(options.planPath);
  const signOff: SignOff =
    goal.evidence.length === 0
      ? { goal: goal.text, verdict: 'reject', missing: 'the evidence list is empty: fill it and try again', judgeFailed: false, planPath: planRel }
      : await judge(options, goal.text, plan, planRel);
  if (signOff.verdict === 'accept') await recordSignOff(options, goal.text, signOff);
  report(signOff);
  return signOff;
}

async function judge(options: CompleteGoalOptions, goal: string, plan: string, planRel: string): Promise<SignOff> {
  // Fresh eyes: no slice of the worker's trajectory, no guidance or ancestry from its run.
  const judgeAgent = markFresh(
    new Agent({
      name: 'judge',
      system: JUDGE_SYSTEM,
      tools: readOnlyTools(options.root),
      maxTurns: 12,
      ...judgeSettings(options.judge),
    }),
  );
  try {
    const answer = await judgeAgent.prompt(
      createPrompt({ name: 'sign-off', user: judgeRequest(goal, plan, planRel), responseFormat: JudgeAnswer }),
    );
    const verdict = parseVerdict(answer.review);
    return { goal, verdict: verdict.verdict, missing: verdict.missing, judgeFailed: false, planPath: planRel };
  } catch (error) {
    // A judge that cannot judge does not hold the work hostage: sign off, and say so in the log.
    return { goal, verdict: 'accept', missing: errorMessage(error).slice(0, 300), judgeFailed: true, planPath: planRel };
  }
}

/** Only the keys that are set: an explicit undefined would override the agent's defaults. */
function judgeSettings(judge: JudgeSettings): JudgeSettings {
  const { client, model, providers, maxTokens, pricing, enableCache, cache } = judge;
  return {
    ...(client ? { client } : {}),
    ...(model ? { model } : {}),
    ...(providers ? { providers } : {}),
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(pricing ? { pricing } : {}),
    ...(enableCache !== undefined ? { enableCache } : {}),
    ...(cache ? { cache } : {}),
  };
}

async function recordSignOff(options: CompleteGoalOptions, goal: string, signOff: SignOff): Promise<void> {
  // Re-read: the file may have changed on disk while the judge was reading.
  const current = await readFile(options.planPath, 'utf8');
  const stamp = (options.now?.() ?? new Date()).toISOString().slice(0, 16).replace('T', ' ');
  const line = signOff.judgeFailed
    ? `- ${stamp} signed off "${goal}" WITHOUT a verdict: the judge failed (${signOff.missing.replace(/\s+/g, ' ')})`
    : `- ${stamp} signed off "${goal}": judge accepted`;
  const edited = appendLog(setGoalStatus(current, goal, 'done'), line);
  await writeFileAtomically(options.planPath, edited);
}

function report(signOff: SignOff): void {
  const scope = currentScope();
  if (scope === undefined) return;
  scope.workflow.emit(scope.node, { type: 'goalSignOff', ...signOff });
}
