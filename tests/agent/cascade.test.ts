import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AGENT_DEFAULTS,
  createAgent,
  createPrompt,
  defineTool,
  MaxTurnsExceededError,
  UsageError,
  type AgentHooks,
  type AgentSettings,
  type Skill,
  type Tool,
} from 'groundswell';
import { json, ScriptedModel, toolUse, type RequestBody } from 'groundswell/testing';
import { Answer, toolNamesOf, toolResultsOf } from '../support/agent-helpers.js';
import { caught } from '../support/decorators-helpers.js';
import { agentModel, PROVIDER_MODEL_ID, providerPath, systemText } from '../support/model-path.js';

type Key = keyof AgentSettings;
type Value<K extends Key> = NonNullable<AgentSettings[K]>;

function namedTool(name: string): Tool {
  return defineTool({ name, description: `The ${name} tool.`, input: z.object({}), execute: () => name });
}
function mcpServer(name: string): Value<'mcps'>[number] {
  const server = new McpServer({ name: `${name}-server`, version: '1.0.0' });
  server.registerTool(`${name}_ping`, { description: 'Pings.' }, () => ({ content: [{ type: 'text', text: 'pong' }] }));
  return { name, transport: 'in-process', server };
}
function skill(name: string): Skill {
  return { name, description: `When to use ${name}.`, content: `Steps of ${name}.` };
}

/**
 * Two distinct values per setting. `high` also differs from the default, so "the agent's value
 * beats the default" is visible; `low` is falsy where the type allows (0, false, ''), so a falsy
 * value that is set must still win over the layers below. Typed as a full record: a new field in
 * AgentSettings fails to compile here until it is covered.
 */
const VALUES: { [K in Key]-?: { high: Value<K>; low: Value<K> } } = {
  system: { high: 'You are the high system.', low: '' },
  model: { high: 'claude-high', low: 'claude-low' },
  maxTokens: { high: 777, low: 1 },
  temperature: { high: 0.7, low: 0 },
  stop: { high: ['STOP-HIGH'], low: [] },
  tools: { high: [namedTool('tool_high')], low: [namedTool('tool_low')] },
  mcps: { high: [mcpServer('mcphigh')], low: [] },
  skills: { high: [skill('skill-high')], low: [skill('skill-low')] },
  hooks: { high: { sessionStart: () => undefined }, low: {} },
  env: { high: { TOKEN: 'high' }, low: {} },
  enableCache: { high: true, low: false },
  enableReflection: { high: true, low: false },
  maxTurns: { high: 7, low: 1 },
  structuredOutput: { high: 'tool', low: 'native' },
};
const KEYS = Object.keys(VALUES) as Key[];

/** Settings with just one field set. */
function only<K extends Key>(key: K, value: AgentSettings[K] | undefined): AgentSettings {
  const settings: AgentSettings = {};
  if (value !== undefined) settings[key] = value;
  return settings;
}

interface Layers {
  prompt?: AgentSettings;
  overrides?: AgentSettings;
  agent?: AgentSettings;
}

function resolveWith(layers: Layers) {
  const agent = createAgent({ name: 'cascade', ...layers.agent });
  const prompt = createPrompt({ user: 'q', responseFormat: Answer, ...layers.prompt });
  return agent.resolve(prompt, layers.overrides);
}

describe('the override cascade: prompt > overrides > agent > defaults, for every setting', () => {
  it('covers every setting the agent resolves', () => {
    const all: AgentSettings = Object.fromEntries(KEYS.map((key) => [key, VALUES[key].high]));
    const resolved = resolveWith({ prompt: all });
    // `languageModel` is derived from `model` (set when it is a provider model), not a setting of its own.
    expect(Object.keys(resolved).sort()).toEqual([...KEYS, 'languageModel'].sort());
    for (const key of Object.keys(AGENT_DEFAULTS)) if (key !== 'languageModel') expect(KEYS).toContain(key);
  });

  describe.each(KEYS)('%s', (key) => {
    const { high, low } = VALUES[key];

    it('the prompt’s value wins over overrides and agent', () => {
      expect(resolveWith({ prompt: only(key, high), overrides: only(key, low), agent: only(key, low) })[key]).toBe(high);
      expect(resolveWith({ prompt: only(key, low), overrides: only(key, high), agent: only(key, high) })[key]).toBe(low);
    });

    it('the overrides’ value wins over the agent when the prompt leaves it unset', () => {
      expect(resolveWith({ overrides: only(key, high), agent: only(key, low) })[key]).toBe(high);
      expect(resolveWith({ overrides: only(key, low), agent: only(key, high) })[key]).toBe(low);
    });

    it('the agent’s value wins over the default', () => {
      expect(resolveWith({ agent: only(key, high) })[key]).toBe(high);
    });

    it('with nothing set, the default from AGENT_DEFAULTS (or no value)', () => {
      const resolved = resolveWith({});
      if (key in AGENT_DEFAULTS) expect(resolved[key]).toEqual(AGENT_DEFAULTS[key as keyof typeof AGENT_DEFAULTS]);
      else expect(resolved[key]).toBeUndefined();
    });

    it('an explicit undefined does not count as set', () => {
      expect(resolveWith({ prompt: { [key]: undefined }, overrides: { [key]: undefined }, agent: only(key, high) })[key]).toBe(high);
    });
  });

  it('the defaults are AGENT_DEFAULTS, and AGENT_DEFAULTS cannot be changed', () => {
    expect(resolveWith({})).toEqual(AGENT_DEFAULTS);
    expect(Object.isFrozen(AGENT_DEFAULTS)).toBe(true);
    expect(AGENT_DEFAULTS).toMatchObject({ maxTokens: 4096, maxTurns: 10, structuredOutput: 'native', enableCache: false });
  });

  it('a set value replaces the lower one whole: tools, hooks, env and skills are never merged', () => {
    const resolved = resolveWith({
      prompt: { tools: VALUES.tools.high, hooks: VALUES.hooks.high, env: { ONLY: 'prompt' }, skills: VALUES.skills.high },
      agent: { tools: VALUES.tools.low, hooks: { sessionEnd: () => undefined }, env: { AGENT: 'x' }, skills: VALUES.skills.low },
    });
    expect(resolved.tools).toEqual(VALUES.tools.high);
    expect(resolved.hooks).toBe(VALUES.hooks.high);
    expect(resolved.hooks).not.toHaveProperty('sessionEnd');
    expect(resolved.env).toEqual({ ONLY: 'prompt' });
    expect(resolved.skills).toEqual(VALUES.skills.high);
  });
});

describe('the cascade as sent to the API', () => {
  /** The body of the one request a call with these layers sends. */
  async function sent(layers: Layers): Promise<RequestBody> {
    const model = new ScriptedModel([json({ answer: 'ok' })]);
    const agent = createAgent({ name: 'cascade', ...(await agentModel(model)), ...layers.agent });
    await agent.prompt(createPrompt({ user: 'q', responseFormat: Answer, ...layers.prompt }), layers.overrides);
    model.assertComplete();
    return model.requests[0]?.body ?? {};
  }

  /** What the request shows of each field, and what it should show for a value (undefined: the default). */
  const ON_THE_WIRE: ReadonlyArray<{ key: Key; read(body: RequestBody): unknown; expected(value: unknown): unknown }> = [
    { key: 'system', read: (b) => systemText(b), expected: (v) => v },
    { key: 'model', read: (b) => b.model, expected: (v) => v ?? AGENT_DEFAULTS.model },
    { key: 'maxTokens', read: (b) => b.max_tokens, expected: (v) => v ?? AGENT_DEFAULTS.maxTokens },
    { key: 'temperature', read: (b) => b.temperature, expected: (v) => v },
    { key: 'stop', read: (b) => b.stop_sequences, expected: (v) => v },
    { key: 'tools', read: (b) => toolNamesOf(b), expected: (v) => (v as Tool[] | undefined)?.map((t) => t.name) },
    {
      key: 'skills',
      read: (b) => systemText(b),
      expected: (v) => {
        const [s] = (v as Skill[] | undefined) ?? [];
        return s === undefined ? undefined : `# Skills\n\n## ${s.name}\n${s.description ?? ''}\n\n${s.content}`;
      },
    },
  ];

  // `low` values that are empty (system '', stop []) send nothing, so these use two non-empty values.
  const WIRE_VALUES: Partial<{ [K in Key]: { high: Value<K>; low: Value<K> } }> = {
    system: { high: 'High system.', low: 'Low system.' },
    stop: { high: ['STOP-HIGH'], low: ['STOP-LOW'] },
    temperature: { high: 0.7, low: 0 },
  };

  describe.each(ON_THE_WIRE)('$key', ({ key, read, expected }) => {
    const { high, low } = WIRE_VALUES[key] ?? VALUES[key];

    // A model id in a layer picks an Anthropic model: the provider path has its model object.
    it.skipIf(providerPath && key === 'model')('prompt > overrides > agent > default', async () => {
      expect(read(await sent({ prompt: only(key, high), overrides: only(key, low), agent: only(key, low) }))).toEqual(expected(high));
      expect(read(await sent({ overrides: only(key, high), agent: only(key, low) }))).toEqual(expected(high));
      expect(read(await sent({ agent: only(key, high) }))).toEqual(expected(high));
      expect(read(await sent({ prompt: only(key, low), agent: only(key, high) }))).toEqual(expected(low));
      expect(read(await sent({}))).toEqual(expected(undefined));
    });
  });

  it('with nothing set: the default model and max_tokens, and no system, temperature, stop or tools fields', async () => {
    const body = await sent({});
    expect(body.model).toBe(providerPath ? PROVIDER_MODEL_ID : AGENT_DEFAULTS.model);
    expect(body.max_tokens).toBe(AGENT_DEFAULTS.maxTokens);
    for (const field of ['system', 'temperature', 'stop_sequences', 'tools', 'tool_choice']) expect(body).not.toHaveProperty(field);
  });

  it('system and skills from different layers combine: system first, then the skills section', async () => {
    const body = await sent({ agent: { system: 'You are precise.' }, prompt: { skills: [skill('triage'), skill('escalate')] } });
    expect(systemText(body)).toBe(
      'You are precise.\n\n# Skills\n\n## triage\nWhen to use triage.\n\nSteps of triage.\n\n## escalate\nWhen to use escalate.\n\nSteps of escalate.',
    );
  });

  it('structuredOutput picks what is sent: prompt "native" beats overrides "tool"', async () => {
    const native = await sent({ prompt: { structuredOutput: 'native' }, overrides: { structuredOutput: 'tool' }, agent: { structuredOutput: 'tool' } });
    expect(native).toHaveProperty('output_config');
    expect(native).not.toHaveProperty('tool_choice');

    const model = new ScriptedModel([toolUse('final_answer', { answer: 'ok' })]);
    const agent = createAgent({ name: 'cascade', ...(await agentModel(model)), structuredOutput: 'native' });
    await agent.prompt(createPrompt({ user: 'q', responseFormat: Answer }), { structuredOutput: 'tool' });
    expect(model.requests[0]?.body.tool_choice).toEqual({ type: 'tool', name: 'final_answer' });
    model.assertComplete();
  });

  it('mcps: the tools of the winning layer’s servers are offered, and only those', async () => {
    const model = new ScriptedModel([json({ answer: 'ok' })]);
    const agent = createAgent({ name: 'cascade', ...(await agentModel(model)), mcps: [mcpServer('agentsrv')] });
    await agent.prompt(createPrompt({ user: 'q', responseFormat: Answer }), { mcps: [mcpServer('callsrv')] });
    expect(toolNamesOf(model.requests[0]?.body ?? {})).toEqual(['mcp__callsrv__callsrv_ping']);
    model.assertComplete();
  });
});

describe('the cascade in behaviour', () => {
  it('hooks: only the winning layer’s hooks run (not merged)', async () => {
    const ran: string[] = [];
    const hooksOf = (layer: string): AgentHooks => ({
      sessionStart: () => void ran.push(`${layer}:start`),
      sessionEnd: () => void ran.push(`${layer}:end`),
    });
    const model = new ScriptedModel([json({ answer: '1' }), json({ answer: '2' }), json({ answer: '3' })]);
    const agent = createAgent({ name: 'cascade', ...(await agentModel(model)), hooks: hooksOf('agent') });
    await agent.prompt(createPrompt({ user: 'q', responseFormat: Answer, hooks: { sessionEnd: () => void ran.push('prompt:end') } }), {
      hooks: hooksOf('overrides'),
    });
    expect(ran).toEqual(['prompt:end']);
    ran.length = 0;
    await agent.prompt(createPrompt({ user: 'q', responseFormat: Answer }), { hooks: hooksOf('overrides') });
    expect(ran).toEqual(['overrides:start', 'overrides:end']);
    ran.length = 0;
    await agent.prompt(createPrompt({ user: 'q', responseFormat: Answer }));
    expect(ran).toEqual(['agent:start', 'agent:end']);
    model.assertComplete();
  });

  it('env: the tool sees the prompt’s env over the overrides’ and the agent’s', async () => {
    const envTool = defineTool({ name: 'env', description: 'Env.', input: z.object({}), execute: (_i, { env }) => JSON.stringify(env) });
    const model = new ScriptedModel([toolUse('env', {}), json({ answer: 'ok' })]);
    const agent = createAgent({ name: 'cascade', ...(await agentModel(model)), tools: [envTool], env: { FROM: 'agent' } });
    await agent.prompt(createPrompt({ user: 'q', responseFormat: Answer, env: { FROM: 'prompt' } }), { env: { FROM: 'overrides', EXTRA: 'x' } });
    expect(toolResultsOf(model.requests[1])[0]?.content).toBe(JSON.stringify({ FROM: 'prompt' }));
    model.assertComplete();
  });

  it('maxTurns: the prompt’s limit applies over the agent’s', async () => {
    const model = new ScriptedModel([toolUse('tool_low', {})]);
    const agent = createAgent({ name: 'cascade', ...(await agentModel(model)), tools: VALUES.tools.low, maxTurns: 5 });
    const error = await caught(() => agent.prompt(createPrompt({ user: 'q', responseFormat: Answer, maxTurns: 1 }), { maxTurns: 3 }));
    expect(error).toBeInstanceOf(MaxTurnsExceededError);
    expect((error as MaxTurnsExceededError).maxTurns).toBe(1);
    expect(model.requests).toHaveLength(1);
    model.assertComplete();
  });

  it('enableCache: a prompt that turns the cache off is asked again even when the agent caches', async () => {
    const model = new ScriptedModel([json({ answer: 'first' }), json({ answer: 'second' }), json({ answer: 'third' })]);
    const agent = createAgent({ name: 'cascade', ...(await agentModel(model)), enableCache: true });
    const cached = createPrompt({ user: 'same question', responseFormat: Answer });
    await expect(agent.prompt(cached)).resolves.toEqual({ answer: 'first' });
    await expect(agent.prompt(cached)).resolves.toEqual({ answer: 'first' });
    expect(model.requests).toHaveLength(1);
    const uncached = createPrompt({ user: 'same question', responseFormat: Answer, enableCache: false });
    await expect(agent.prompt(uncached)).resolves.toEqual({ answer: 'second' });
    await expect(agent.prompt(cached, { enableCache: false })).resolves.toEqual({ answer: 'third' });
    expect(model.requests).toHaveLength(3);
    model.assertComplete();
  });
});

describe('invalid settings are a UsageError naming the field, and nothing is sent', () => {
  const INVALID: ReadonlyArray<[string, AgentSettings]> = [
    ['maxTokens', { maxTokens: 0 }],
    ['maxTokens', { maxTokens: 1.5 }],
    ['maxTurns', { maxTurns: -1 }],
    ['maxTurns', { maxTurns: 0 }],
    // @ts-expect-error -- only 'native' or 'tool' (checked at runtime too, for plain JS callers)
    ['structuredOutput', { structuredOutput: 'x' }],
  ];

  it.each(INVALID)('agent config: %s %j', (field, settings) => {
    const error = (() => {
      try {
        createAgent({ name: 'bad', ...settings });
      } catch (thrown) {
        return thrown;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(field);
  });

  it.each(INVALID)('call overrides: %s %j', async (field, settings) => {
    const model = new ScriptedModel([]);
    const agent = createAgent({ name: 'ok', ...(await agentModel(model)) });
    const prompt = createPrompt({ user: 'q', responseFormat: Answer });
    for (const call of [() => agent.prompt(prompt, settings), () => agent.stream(prompt, settings).finalValue()]) {
      const error = await caught(call);
      expect(error).toBeInstanceOf(UsageError);
      expect((error as Error).message).toContain(field);
    }
    expect(model.requests).toHaveLength(0);
    model.assertComplete();
  });

  it.each(INVALID)('prompt settings: %s %j', async (field, settings) => {
    const model = new ScriptedModel([]);
    const agent = createAgent({ name: 'ok', client: model.client({ maxRetries: 0 }) });
    const error = await caught(async () => agent.prompt(createPrompt({ user: 'q', responseFormat: Answer, ...settings })));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toContain(field);
    expect(model.requests).toHaveLength(0);
    model.assertComplete();
  });
});
