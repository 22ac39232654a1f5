import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  Agent,
  createAgent,
  createPrompt,
  createWorkflow,
  defineSpawnableWorkflow,
  defineTool,
  introspectionTools,
  ObservedState,
  Step,
  systemClock,
  Task,
  UsageError,
  Workflow,
  type AgentConfig,
  type PromptConfig,
  type WorkflowConfig,
} from 'groundswell';
import { completeGoalTool, createPlanDrafter, PlanWatcher, planDraftingTools, signOffGoal } from 'groundswell/plans';
import { LruCacheStore } from 'groundswell/cache';
import { connectMcp, validateMcpConfig, type McpServerConfig } from 'groundswell/mcp';
import { json, ScriptedModel } from 'groundswell/testing';
import { createInProcessServer } from '../mcp/fixtures/in-process-server.js';

// Every config below is what an untyped (plain JS, JSON) caller could pass: the casts are the point.
const Answer = z.object({ answer: z.string() });
const noop = (): void => undefined;
const tool = defineTool({ name: 'noop', description: 'Does nothing.', input: z.object({}), execute: noop });

const workflow = (config: unknown, executor: unknown = () => 1): unknown => new Workflow(config as WorkflowConfig, executor as () => number);
const agent = (config: Record<string, unknown>): Agent => createAgent({ name: 'writer', ...config } as AgentConfig);
const prompt = (config: Record<string, unknown>): unknown =>
  createPrompt({ user: 'hi', responseFormat: Answer, ...config } as PromptConfig<typeof Answer>);
const toolWith = (fields: Record<string, unknown>): unknown =>
  defineTool({ name: 'noop', description: 'd', input: z.object({}), execute: noop, ...fields } as Parameters<typeof defineTool>[0]);
const step = (options: unknown): unknown => Step(options as Parameters<typeof Step>[0]);
const task = (options: unknown): unknown => Task(options as Parameters<typeof Task>[0]);
const goalOptions = (options: Record<string, unknown>): unknown =>
  completeGoalTool({ planPath: 'PLAN.md', root: '.', judge: {}, ...options } as Parameters<typeof completeGoalTool>[0]);
const drafter = (options: Record<string, unknown>): unknown =>
  createPlanDrafter({ root: '.', planPath: 'PLAN.md', ...options } as Parameters<typeof createPlanDrafter>[0]);
const introspection = (options: unknown): unknown => introspectionTools(options as Parameters<typeof introspectionTools>[0]);

/** A ctx.step call with bad options, made inside a running workflow; resolves to what it threw. */
async function ctxStep(options: unknown): Promise<never> {
  const wf = createWorkflow('host', async (ctx) => {
    try {
      await ctx.step('inner', () => 1, options as Parameters<typeof ctx.step>[2]);
      return undefined;
    } catch (error) {
      return error;
    }
  });
  throw await wf.run();
}

async function overrides(value: unknown): Promise<unknown> {
  const model = new ScriptedModel([json({ answer: 'x' })]);
  const writer = createAgent({ name: 'writer', client: model.client() });
  return writer.prompt(createPrompt({ user: 'hi', responseFormat: Answer }), value as Parameters<Agent['prompt']>[1]);
}

type Case = [label: string, attempt: () => unknown, message: RegExp];

const invalid: Case[] = [
  // new Workflow(config) / createWorkflow
  ['workflow name of the wrong type', () => workflow({ name: 42 }), /^Workflow "Workflow": config\.name must be a non-empty string, got 42\.$/],
  ['workflow name empty (string form)', () => workflow(''), /^Workflow "Workflow": name must be a non-empty string, got ""\.$/],
  // The shapes next to `{ name }` alone, which is accepted without running the schema.
  ['workflow name blank (config form)', () => workflow({ name: '   ' }), /config\.name must be a non-empty string/],
  ['workflow name with a misspelt key beside it', () => workflow({ name: 'w', mision: 'x' }), /^Workflow "w": config has an unknown key "mision"/],
  ['workflow config whose prototype is not Object', () => workflow(Object.assign(Object.create({ goal: 3 }) as object, { name: 'w' })), /config\.goal must be a string, got 3/],
  [
    'workflow config a proxy that throws when looked at',
    () =>
      workflow(
        new Proxy(
          { name: 'w' },
          {
            getPrototypeOf() {
              throw new Error('no prototype for you');
            },
          },
        ),
      ),
    /^Workflow "w": config could not be read \(no prototype for you\)\.$/,
  ],
  ['workflow config null', () => workflow(null), /config must be a name or a config object, got null/],
  ['workflow config a number', () => workflow(42), /config must be a name or a config object, got 42/],
  ['workflow mission not a string', () => workflow({ name: 'w', mission: 7 }), /^Workflow "w": config\.mission must be a string, got 7\.$/],
  ['workflow project not a string', () => workflow({ name: 'w', project: {} }), /config\.project must be a string, got an object/],
  ['workflow goal not a string', () => workflow({ name: 'w', goal: ['ship'] }), /config\.goal must be a string, got an array of 1/],
  ['workflow plan not a string', () => workflow({ name: 'w', plan: 5 }), /config\.plan must be a non-empty string, got 5/],
  ['workflow enableReflection "yes"', () => workflow({ name: 'w', enableReflection: 'yes' }), /config\.enableReflection must be true, false or \{ maxAttempts, agent \}, got "yes"/],
  ['workflow enableReflection.maxAttempts 0', () => workflow({ name: 'w', enableReflection: { maxAttempts: 0 } }), /config\.enableReflection\.maxAttempts must be a positive integer, got 0/],
  ['workflow enableReflection.agent not an agent', () => workflow({ name: 'w', enableReflection: { agent: 'bot' } }), /config\.enableReflection\.agent must be an Agent, got "bot"/],
  ['errorMergeStrategy "yes"', () => workflow({ name: 'w', errorMergeStrategy: 'yes' }), /config\.errorMergeStrategy must be an object like \{ enabled: true.*\}, got "yes"/],
  ['errorMergeStrategy.enabled "yes"', () => workflow({ name: 'w', errorMergeStrategy: { enabled: 'yes' } }), /config\.errorMergeStrategy\.enabled must be true or false, got "yes"/],
  ['errorMergeStrategy without enabled', () => workflow({ name: 'w', errorMergeStrategy: {} }), /config\.errorMergeStrategy\.enabled is required: true or false/],
  ['errorMergeStrategy.maxMergeDepth -1', () => workflow({ name: 'w', errorMergeStrategy: { enabled: true, maxMergeDepth: -1 } }), /maxMergeDepth must be an integer >= 0, got -1/],
  ['errorMergeStrategy.combine not a function', () => workflow({ name: 'w', errorMergeStrategy: { enabled: true, combine: 'x' } }), /config\.errorMergeStrategy\.combine must be a function, got "x"/],
  ['clock without methods', () => workflow({ name: 'w', clock: {} }), /config\.clock must be a Clock \(an object with now\(\) and sleep/],
  ['clock without sleep', () => workflow({ name: 'w', clock: { now: () => 0 } }), /config\.clock must be a Clock/],
  ['retention not an object', () => workflow({ name: 'w', retention: 'big' }), /config\.retention must be an object like \{ maxEventsPerNode: 1000 \}, got "big"/],
  ['retention unknown key', () => workflow({ name: 'w', retention: { maxEvents: 5 } }), /config\.retention has an unknown key "maxEvents" \(did you mean maxEventsPerNode\?\)/],
  ['detached "yes"', () => workflow({ name: 'w', detached: 'yes' }), /config\.detached must be true or false, got "yes"/],
  ['workflow unknown key', () => workflow({ nmae: 'w' }), /config has an unknown key "nmae" \(did you mean name\?\)/],
  ['workflow unknown key far from any', () => workflow({ color: 'red' }), /config has an unknown key "color"; known keys: name, mission, project, goal, plan, enableReflection/],
  ['workflow second argument', () => workflow({ name: 'w' }, 42), /^Workflow "w": the second argument must be an executor function or a parent Workflow, got 42\.$/],
  ['createWorkflow goal of the wrong type', () => createWorkflow({ name: 'w', goal: 3 } as unknown as WorkflowConfig, () => 1), /config\.goal must be a string, got 3/],

  // @Step / ctx.step options and retry
  ['backoffMs >= 2^31', () => step({ retry: { maxAttempts: 3, backoffMs: 2 ** 31 } }), /^@Step: options\.retry\.backoffMs must be a number of milliseconds from 0 to 2147483647 \(longer timers overflow\), or a function of the attempt, got 2147483648\.$/],
  ['backoffMs Infinity', () => step({ retry: { maxAttempts: 3, backoffMs: Infinity } }), /options\.retry\.backoffMs must be .*, got Infinity/],
  ['backoffMs NaN', () => step({ retry: { maxAttempts: 3, backoffMs: Number.NaN } }), /options\.retry\.backoffMs must be .*, got NaN/],
  ['backoffMs a string', () => step({ retry: { maxAttempts: 3, backoffMs: '100' } }), /options\.retry\.backoffMs must be .*, got "100"/],
  ['maxAttempts a string', () => step({ name: 'fetch', retry: { maxAttempts: '3' } }), /^@Step "fetch": options\.retry\.maxAttempts must be a positive integer, got "3"\.$/],
  ['maxAttempts missing', () => step({ retry: {} }), /options\.retry\.maxAttempts is required: a positive integer/],
  ['retryOn not a function', () => step({ retry: { maxAttempts: 2, retryOn: true } }), /options\.retry\.retryOn must be a function, got true/],
  ['retry unknown key', () => step({ retry: { maxAttempts: 2, backoff: 10 } }), /options\.retry has an unknown key "backoff" \(did you mean backoffMs\?\)/],
  ['step trackTiming "no"', () => step({ trackTiming: 'no' }), /options\.trackTiming must be true or false, got "no"/],
  ['step snapshotState 1', () => step({ snapshotState: 1 }), /options\.snapshotState must be true or false, got 1/],
  ['step logStart "y"', () => step({ logStart: 'y' }), /options\.logStart must be true or false/],
  ['step logFinish null', () => step({ logFinish: null }), /options\.logFinish must be true or false, got null/],
  ['step name a number', () => step({ name: 5 }), /options\.name must be a non-empty string, got 5/],
  ['step unknown key', () => step({ retries: 3 }), /^@Step: options has an unknown key "retries" \(did you mean retry\?\)\.$/],
  ['step options a string', () => step('fetch'), /^@Step: options must be an object of step options, got "fetch"\.$/],
  ['ctx.step options with an overflowing backoff', () => ctxStep({ retry: { maxAttempts: 2, backoffMs: 2 ** 32 } }), /^ctx\.step "inner": options\.retry\.backoffMs must be/],
  ['ctx.step options with a name', () => ctxStep({ name: 'other' }), /^ctx\.step "inner": options has an unknown key "name"/],

  // @Task / @ObservedState options
  ['task concurrent "yes"', () => task({ concurrent: 'yes' }), /^@Task: options\.concurrent must be true or false, got "yes"\.$/],
  ['task errorMergeStrategy "yes"', () => task({ name: 'fan', errorMergeStrategy: 'yes' }), /^@Task "fan": options\.errorMergeStrategy must be an object/],
  ['task unknown key', () => task({ concurent: true }), /options has an unknown key "concurent" \(did you mean concurrent\?\)/],
  ['observed state typo', () => ObservedState({ redacted: true } as Parameters<typeof ObservedState>[0]), /^@ObservedState: options has an unknown key "redacted" \(did you mean redact\?\)\.$/],
  ['observed state hidden "yes"', () => ObservedState({ hidden: 'yes' } as unknown as Parameters<typeof ObservedState>[0]), /options\.hidden must be true or false, got "yes"/],

  // new Agent(config)
  ['agent model 123', () => agent({ model: 123 }), /^Agent "writer": config\.model must be a non-empty string \(an Anthropic model id\) or an AI SDK language model \(v2, v3 or v4\), got 123\.$/],
  ['agent model ""', () => agent({ model: '' }), /config\.model must be a non-empty string \(an Anthropic model id\) or an AI SDK language model \(v2, v3 or v4\), got ""/],
  ['agent temperature 5', () => agent({ temperature: 5 }), /config\.temperature must be a number between 0 and 1, got 5/],
  ['agent temperature "hot"', () => agent({ temperature: 'hot' }), /^Agent "writer": config\.temperature must be a number between 0 and 1, got "hot"\.$/],
  ['agent temperature NaN', () => agent({ temperature: Number.NaN }), /config\.temperature must be a number between 0 and 1, got NaN/],
  ['agent temperature negative', () => agent({ temperature: -0.1 }), /config\.temperature must be a number between 0 and 1, got -0\.1/],
  ['agent maxTokens 0', () => agent({ maxTokens: 0 }), /config\.maxTokens must be a positive integer, got 0/],
  ['agent maxTokens 1.5', () => agent({ maxTokens: 1.5 }), /config\.maxTokens must be a positive integer, got 1\.5/],
  ['agent maxTokens "100"', () => agent({ maxTokens: '100' }), /config\.maxTokens must be a positive integer, got "100"/],
  ['agent stop "END"', () => agent({ stop: 'END' }), /config\.stop must be an array of non-empty strings, got "END"/],
  ['agent stop with a number', () => agent({ stop: ['END', 3] }), /config\.stop\[1\] must be a non-empty string, got 3/],
  ['agent stop with ""', () => agent({ stop: [''] }), /config\.stop\[0\] must be a non-empty string, got ""/],
  ['agent system 42', () => agent({ system: 42 }), /config\.system must be a string, got 42/],
  ['agent env value not a string', () => agent({ env: { TOKEN: 12345678 } }), /^Agent "writer": config\.env\.TOKEN must be a string, got number\.$/],
  ['agent env a string', () => agent({ env: 'TOKEN=abc' }), /config\.env must be an object mapping names to strings, got a string\./],
  ['agent tools "x"', () => agent({ tools: 'x' }), /config\.tools must be an array of tools \(defineTool\), got "x"/],
  ['agent tools [{}]', () => agent({ tools: [{}] }), /config\.tools\[0\]\.name is required: a tool name matching/],
  ['agent tool with a JSON schema as input', () => agent({ tools: [{ ...tool, input: { type: 'object' } }] }), /config\.tools\[0\]\.input must be a zod 4 schema/],
  ['agent mcps {}', () => agent({ mcps: {} }), /config\.mcps must be an array of MCP server configs, got an object/],
  ['agent mcps with an unknown transport', () => agent({ mcps: [{ name: 'srv', transport: 'http' }] }), /config\.mcps\[0\]\.transport must be one of: stdio, in-process, got "http"/],
  ['agent cache {}', () => agent({ cache: {} }), /config\.cache must be a Cache store \(get, set, bust, bustPrefix and metrics methods/],
  ['agent cache true', () => agent({ cache: true }), /config\.cache must be a Cache store .*, got true/],
  ['agent client {}', () => agent({ client: {} }), /config\.client must be an Anthropic client \(an object with messages\.create\), got an object/],
  ['agent client without create', () => agent({ client: { messages: {} } }), /config\.client must be an Anthropic client/],
  ['agent hook not a function', () => agent({ hooks: { preToolUse: 'deny' } }), /config\.hooks\.preToolUse must be a function, got "deny"/],
  ['agent unknown hook', () => agent({ hooks: { preToolCall: noop } }), /config\.hooks has an unknown key "preToolCall" \(did you mean preToolUse\?\)/],
  ['agent hooks a string', () => agent({ hooks: 'x' }), /config\.hooks must be an object of hook functions/],
  ['agent skill without content', () => agent({ skills: [{ name: 'style' }] }), /config\.skills\[0\]\.content is required: a string/],
  ['agent enableCache "yes"', () => agent({ enableCache: 'yes' }), /config\.enableCache must be true, false or \{ ignore, refresh \}, got "yes"/],
  [
    'agent enableCache ignoring an unknown part',
    () => agent({ enableCache: { ignore: ['ancestry', 'goal'] } }),
    /config\.enableCache\.ignore\[1\] must be one of: system, ancestry, guidance, plan, schema, model, tools, settings, got "goal"/,
  ],
  [
    'agent enableCache ignoring the user message',
    () => agent({ enableCache: { ignore: ['user'] } }),
    /config\.enableCache\.ignore\[0\] must be one of: .*, got "user"/,
  ],
  ['agent enableCache ignore not an array', () => agent({ enableCache: { ignore: 'ancestry' } }), /config\.enableCache\.ignore must be an array of key part names/],
  ['agent enableCache unknown option', () => agent({ enableCache: { ignores: ['ancestry'] } }), /config\.enableCache has an unknown key "ignores" \(did you mean ignore\?\)/],
  ['agent enableReflection 2', () => agent({ enableReflection: 2 }), /config\.enableReflection must be true, false or \{ maxAttempts \}, got 2/],
  ['agent maxTurns 0', () => agent({ maxTurns: 0 }), /config\.maxTurns must be a positive integer, got 0/],
  ['agent structuredOutput "json"', () => agent({ structuredOutput: 'json' }), /config\.structuredOutput must be one of: native, tool, got "json"/],
  ['agent pricing a string', () => agent({ pricing: 'cheap' }), /config\.pricing must be an object mapping model ids to prices/],
  ['agent pricing negative', () => agent({ pricing: { m: { inputPerMTok: -1, outputPerMTok: 1 } } }), /config\.pricing\.m\.inputPerMTok must be a finite number >= 0, got -1/],
  ['agent goalAncestry goal 5', () => agent({ goalAncestry: { goal: 5 } }), /config\.goalAncestry\.goal must be a string, got 5/],
  ['agent goalAncestry unknown key', () => agent({ goalAncestry: { purpose: 'x' } }), /config\.goalAncestry has an unknown key "purpose"/],
  ['agent trajectory checkpoint', () => agent({ trajectory: { checkpoint: 'sometimes' } }), /config\.trajectory\.checkpoint must be one of: off, shadow, adaptive, always, got "sometimes"/],
  ['agent trajectory maxChars 100', () => agent({ trajectory: { maxChars: 100 } }), /config\.trajectory\.maxChars must be an integer >= 200, got 100/],
  ['agent contextBudget strategy', () => agent({ trajectory: { contextBudget: { maxChars: 1000, strategy: 'squash' } } }), /config\.trajectory\.contextBudget\.strategy must be one of: drop, summarize, got "squash"/],
  ['agent contextBudget keepTurns 0', () => agent({ trajectory: { contextBudget: { maxChars: 1000, keepTurns: 0 } } }), /contextBudget\.keepTurns must be a positive integer, got 0/],
  ['agent plan a string', () => agent({ plan: 'PLAN.md' }), /config\.plan must be an object like \{ path: "PLAN\.md" \}, got "PLAN\.md"/],
  ['agent plan path ""', () => agent({ plan: { path: '' } }), /config\.plan\.path must be a non-empty string, got ""/],
  ['agent plan staleAfterTurns 0', () => agent({ plan: { path: 'p', staleAfterTurns: 0 } }), /config\.plan\.staleAfterTurns must be a positive integer, got 0/],
  ['agent name 42', () => createAgent({ name: 42 } as unknown as AgentConfig), /^Agent: config\.name must be a non-empty string, got 42\.$/],
  ['agent name missing', () => createAgent({} as AgentConfig), /^Agent: config\.name is required: a non-empty string\.$/],
  ['agent unknown key', () => agent({ maxToken: 5 }), /^Agent "writer": config has an unknown key "maxToken" \(did you mean maxTokens\?\)\.$/],
  ['agent config a string', () => new Agent('writer' as unknown as AgentConfig), /^Agent: config must be an object \(the agent config\), got "writer"\.$/],
  ['agent config with a throwing getter', () => new Agent(hostile() as AgentConfig), /^Agent: config could not be read \(no reading\)\.$/],
  ['setGoalAncestry with a number', () => agent({}).setGoalAncestry({ goal: 3 } as never), /^Agent "writer": setGoalAncestry: ancestry\.goal must be a string, got 3\.$/],

  // agent.prompt(prompt, overrides)
  ['overrides temperature 2', () => overrides({ temperature: 2 }), /^Agent "writer": overrides\.temperature must be a number between 0 and 1, got 2\.$/],
  ['overrides unknown key', () => overrides({ maxToken: 5 }), /overrides has an unknown key "maxToken" \(did you mean maxTokens\?\)/],
  ['overrides tools "x"', () => overrides({ tools: 'x' }), /overrides\.tools must be an array of tools/],

  // new Prompt(config)
  ['prompt user 42', () => prompt({ user: 42 }), /^Prompt: config\.user must be a non-empty string, got 42\.$/],
  ['prompt responseFormat {}', () => prompt({ responseFormat: {} }), /config\.responseFormat must be a zod 4 schema/],
  ['prompt data an array', () => prompt({ data: [1] }), /config\.data must be a plain object of JSON data, got an array of 1/],
  ['prompt name 5', () => prompt({ name: 5 }), /config\.name must be a non-empty string, got 5/],
  ['prompt temperature "hot"', () => prompt({ name: 'ask', temperature: 'hot' }), /^Prompt "ask": config\.temperature must be a number between 0 and 1, got "hot"\.$/],
  ['prompt tools "x"', () => prompt({ tools: 'x' }), /config\.tools must be an array of tools/],
  ['prompt unknown key', () => prompt({ usr: 'hi' }), /config has an unknown key "usr" \(did you mean user\?\)/],

  // defineTool
  ['tool name with a space', () => toolWith({ name: 'has space' }), /^Tool "has space": tool\.name must be a tool name matching .*, got "has space"\.$/],
  ['tool description 5', () => toolWith({ description: 5 }), /tool\.description must be a string, got 5/],
  ['tool execute missing', () => toolWith({ execute: undefined }), /tool\.execute is required: a function/],
  ['tool effect "write"', () => toolWith({ effect: 'write' }), /tool\.effect must be one of: read, mutate, verify, got "write"/],
  ['tool target not a function', () => toolWith({ target: 'file.txt' }), /tool\.target must be a function, got "file\.txt"/],
  ['tool unknown key', () => toolWith({ inputSchema: {} }), /tool has an unknown key "inputSchema"/],

  // MCP server configs
  ['mcp cwd 5', () => validateMcpConfig({ name: 's', transport: 'stdio', command: 'x', cwd: 5 } as unknown as McpServerConfig), /^MCP server "s": config\.cwd must be a string, got 5\.$/],

  ['connectMcp options with a non-string env value', () => connectMcp({ name: 's', transport: 'stdio', command: 'x' }, { env: { K: 1 } } as never), /^connectMcp: options\.env\.K must be a string, got number\.$/],
  ['connectMcp options unknown key', () => connectMcp({ name: 's', transport: 'stdio', command: 'x' }, { clientname: 'c' } as never), /options has an unknown key "clientname" \(did you mean clientName\?\)/],
  ['defineSpawnableWorkflow without create', () => defineSpawnableWorkflow({ input: z.object({}) } as never), /^defineSpawnableWorkflow: entry\.create is required: a function\.$/],
  ['defineSpawnableWorkflow unknown key', () => defineSpawnableWorkflow({ create: noop, input: z.object({}), descripton: 'x' } as never), /entry has an unknown key "descripton" \(did you mean description\?\)/],

  // introspectionTools(options)
  ['introspection maxChars 10', () => introspection({ maxChars: 10 }), /^introspectionTools: options\.maxChars must be an integer >= 200, got 10\.$/],
  ['introspection cache {}', () => introspection({ cache: {} }), /options\.cache must be a Cache store \(with metrics\(\)\) or an Agent/],
  ['introspection workflows an array', () => introspection({ workflows: [] }), /options\.workflows must be an object mapping names to workflow factories, got an array of 0/],
  ['introspection limits.maxDepth -1', () => introspection({ limits: { maxDepth: -1 } }), /options\.limits\.maxDepth must be an integer >= 0, got -1/],
  ['introspection unknown key', () => introspection({ maxchars: 500 }), /options has an unknown key "maxchars" \(did you mean maxChars\?\)/],
  ['introspection options a string', () => introspection('all'), /options must be an options object, got "all"/],

  // completeGoalTool / signOffGoal / createPlanDrafter / PlanWatcher
  ['completeGoalTool({})', () => completeGoalTool({} as Parameters<typeof completeGoalTool>[0]), /^completeGoalTool: options\.planPath is required: a non-empty string\. options\.root is required: a non-empty string\. options\.judge is required/],
  ['completeGoalTool root ""', () => goalOptions({ root: '' }), /options\.root must be a non-empty string, got ""/],
  ['completeGoalTool judge client {}', () => goalOptions({ judge: { client: {} } }), /options\.judge\.client must be an Anthropic client/],
  ['completeGoalTool now "today"', () => goalOptions({ now: 'today' }), /options\.now must be a function, got "today"/],
  ['completeGoalTool unknown key', () => goalOptions({ planpath: 'x' }), /options has an unknown key "planpath" \(did you mean planPath\?\)/],
  ['signOffGoal goal 42', () => signOffGoal({ planPath: 'PLAN.md', root: '.', judge: {} }, 42 as unknown as string), /^signOffGoal: goal must be a non-empty string, got 42\.$/],
  ['signOffGoal({})', () => signOffGoal({} as Parameters<typeof signOffGoal>[0], 'g'), /^signOffGoal: options\.planPath is required/],
  ['createPlanDrafter({})', () => createPlanDrafter({} as Parameters<typeof createPlanDrafter>[0]), /^createPlanDrafter: options\.root is required: a non-empty string/],
  ['createPlanDrafter model 5', () => drafter({ model: 5 }), /options\.model must be a non-empty string \(an Anthropic model id\) or an AI SDK language model \(v2, v3 or v4\), got 5/],
  ['createPlanDrafter unknown key', () => drafter({ clinet: {} }), /options has an unknown key "clinet" \(did you mean client\?\)/],
  ['planDraftingTools root ""', () => planDraftingTools('', 'PLAN.md'), /^planDraftingTools: root must be a non-empty string, got ""\.$/],
  ['PlanWatcher path 5', () => new PlanWatcher({ path: 5 } as unknown as ConstructorParameters<typeof PlanWatcher>[0]), /^PlanWatcher: options\.path must be a non-empty string, got 5\.$/],
];

/** A config whose every read throws, as a hostile caller (or a revoked proxy) would give. */
function hostile(): object {
  return new Proxy(
    {},
    {
      get: () => {
        throw new Error('no reading');
      },
      ownKeys: () => {
        throw new Error('no reading');
      },
    },
  );
}

async function refusal(attempt: () => unknown): Promise<unknown> {
  try {
    await attempt();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('an invalid config is a UsageError at creation, naming the field and what was expected', () => {
  it.each(invalid)('%s', async (_label, attempt, message) => {
    const error = await refusal(attempt);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toMatch(message);
  });

  it('keeps the issues, each with its path, as the cause', async () => {
    const error = (await refusal(() => agent({ temperature: 'hot' }))) as UsageError;
    expect(error.cause).toBeInstanceOf(Error);
    expect((error.cause as { issues: { path: unknown }[] }).issues[0]?.path).toEqual(['temperature']);
  });

  it('never prints an env value, even a wrongly typed one', async () => {
    const error = (await refusal(() => agent({ env: { TOKEN: 'ok-value', OTHER: 987654321 } }))) as UsageError;
    expect(error.message).toContain('config.env.OTHER');
    expect(error.message).not.toContain('987654321');
  });

  it('describes a long string instead of printing it (it may be a misplaced key)', async () => {
    const key = `sk-ant-${'x'.repeat(40)}`;
    const error = (await refusal(() => agent({ client: key }))) as UsageError;
    expect(error.message).toMatch(/config\.client must be an Anthropic client .*, got a string of 47 characters\.$/);
    expect(error.message).not.toContain('sk-ant');
  });

  it('reports several problems at once, a few at most', async () => {
    const error = (await refusal(() => agent({ model: 1, temperature: 2, maxTokens: 3.5, stop: 4, system: 5 }))) as UsageError;
    expect(error.message).toMatch(/config\.system .* config\.model .* config\.maxTokens .*\(2 more problems not shown\.\)$/);
  });

  it('a backoffMs function that returns an overflowing delay fails the step with a UsageError instead of retrying at once', async () => {
    let calls = 0;
    const wf = createWorkflow('w', (ctx) =>
      ctx.step(
        'flaky',
        () => {
          calls += 1;
          throw new Error('down');
        },
        { retry: { maxAttempts: 3, backoffMs: () => 2 ** 31 } },
      ),
    );
    const error = await refusal(() => wf.run());
    expect(calls).toBe(1);
    expect((error as Error).cause).toBeInstanceOf(UsageError);
    expect(((error as Error).cause as Error).message).toMatch(/retry\.backoffMs\(1\) must return a number of milliseconds from 0 to 2147483647, got 2147483648/);
  });
});

describe('valid configs are still accepted', () => {
  const model = new ScriptedModel([]);
  const server = createInProcessServer().server;
  const reflector = createAgent({ name: 'reflector', client: model.client() });
  const valid: Array<[label: string, create: () => unknown]> = [
    ['a workflow by name', () => new Workflow('named')],
    ['a subclass workflow with a parent', () => new Workflow('child', new Workflow('parent'))],
    ['a workflow with no config', () => new Workflow()],
    [
      'a workflow with every field',
      () =>
        createWorkflow(
          {
            name: 'full',
            mission: 'm',
            project: 'p',
            goal: '',
            plan: 'PLAN.md',
            enableReflection: { maxAttempts: 3, agent: reflector },
            errorMergeStrategy: { enabled: true, maxMergeDepth: 0, combine: (errors) => new Error(String(errors.length)) },
            clock: systemClock,
            retention: { maxEventsPerNode: 0, maxLogsPerNode: 10, maxChildrenPerNode: 1 },
            detached: true,
          },
          () => 1,
        ),
    ],
    ['workflow reflection true', () => createWorkflow({ name: 'r', enableReflection: true }, () => 1)],
    [
      'step options at their limits',
      () =>
        Step({
          name: 's',
          snapshotState: true,
          trackTiming: false,
          logStart: true,
          logFinish: false,
          retry: { maxAttempts: 1, backoffMs: 2 ** 31 - 1, retryOn: () => true },
        }),
    ],
    ['a backoff function', () => Step({ retry: { maxAttempts: 2, backoffMs: (n) => n * 10 } })],
    ['task options', () => Task({ name: 't', concurrent: true, errorMergeStrategy: { enabled: false } })],
    ['observed state options', () => ObservedState({ hidden: false, redact: true })],
    [
      'an agent with every field',
      () =>
        createAgent({
          name: 'full',
          client: model.client(),
          system: '',
          model: 'claude-haiku-4-5',
          maxTokens: 1,
          temperature: 0,
          stop: ['END'],
          tools: [tool],
          mcps: [
            { name: 'fs', transport: 'stdio', command: 'node', args: ['x'], cwd: '.', env: { K: 'v' } },
            { name: 'mem', transport: 'in-process', server },
          ],
          skills: [{ name: 'style', description: 'house style', content: 'Be brief.' }],
          hooks: { sessionStart: noop, preToolUse: noop, postToolUse: noop, sessionEnd: noop },
          env: { TOKEN: 'secret' },
          enableCache: true,
          enableReflection: { maxAttempts: 2 },
          maxTurns: 3,
          structuredOutput: 'tool',
          cache: new LruCacheStore(),
          pricing: { 'claude-haiku-4-5': { inputPerMTok: 1, outputPerMTok: 5, cacheReadPerMTok: 0, cacheWritePerMTok: 1.25 } },
          goalAncestry: { mission: 'm', project: 'p', goal: 'g', task: 't' },
          trajectory: { checkpoint: 'adaptive', grounding: 'initial', maxChars: 200, contextBudget: { maxChars: 1, strategy: 'summarize', keepTurns: 1 } },
          plan: { path: 'PLAN.md', staleAfterTurns: 1, reminderChars: 100, resyncChars: 100 },
        }),
    ],
    ['temperature 1', () => createAgent({ name: 'hot', temperature: 1 })],
    ['undefined optional fields', () => createAgent({ name: 'sparse', model: undefined, tools: undefined })],
    ['clearing the goal ancestry', () => createAgent({ name: 'a' }).setGoalAncestry(null)],
    [
      'a prompt with settings',
      () => createPrompt({ name: 'p', user: 'hi', data: { n: 1 }, responseFormat: Answer, temperature: 0.5, tools: [], enableReflection: true }),
    ],
    ['withUser and withData copies', () => createPrompt({ user: 'hi', responseFormat: Answer, stop: ['x'] }).withUser('again').withData({ a: 1 })],
    ['a tool with effect and target', () => toolWith({ effect: 'mutate', target: () => 'file.txt' })],
    ['an in-process MCP config', () => validateMcpConfig({ name: 'mem', transport: 'in-process', server })],
    [
      'introspection options',
      () => introspectionTools({ maxChars: 200, cache: new LruCacheStore(), workflows: {}, agents: {}, limits: { maxDepth: 0, maxSpawnsPerRun: 0 } }),
    ],
    ['introspection with an agent as cache', () => introspectionTools({ cache: reflector })],
    ['introspection without options', () => introspectionTools()],
    ['completeGoalTool', () => completeGoalTool({ planPath: 'PLAN.md', root: '.', judge: { client: model.client(), model: 'm' }, now: () => new Date() })],
    ['createPlanDrafter', () => createPlanDrafter({ name: 'planner', root: '.', planPath: 'PLAN.md', client: model.client(), model: 'm' })],
    ['PlanWatcher', () => new PlanWatcher({ path: 'PLAN.md' })],
  ];

  it.each(valid)('%s', (_label, create) => {
    expect(create).not.toThrow();
  });

  it('per-call overrides within range still run', async () => {
    const scripted = new ScriptedModel([json({ answer: 'ok' })]);
    const writer = createAgent({ name: 'writer', client: scripted.client() });
    const value = await writer.prompt(createPrompt({ user: 'hi', responseFormat: Answer }), { temperature: 0.2, maxTokens: 10, stop: ['STOP'] });
    expect(value).toEqual({ answer: 'ok' });
    expect(scripted.requests[0]?.body).toMatchObject({ temperature: 0.2, max_tokens: 10, stop_sequences: ['STOP'] });
  });
});
