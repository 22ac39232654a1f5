import { array } from '../../checks/collections.js';
import { func, integer, nonEmptyText, numberIn, oneOf, strict, stringRecord, text } from '../../checks/config-fields.js';
import { cacheSettingSchema } from './cache-setting.schema.js';
import { mcpServerConfigSchema } from '../../mcp/mcp-server-config.schema.js';
import { reflectionSettingSchema } from './reflection.schema.js';
import { toolSchema } from '../../tools/tool.schema.js';
import { expected } from '../../checks/leaf.js';
import { union } from '../../checks/union.js';
import { isLanguageModel, type LanguageModelLike } from '../model/language-model.js';

/** A language model object of the AI SDK provider specification (v2, v3 or v4). */
const languageModel = expected<LanguageModelLike>(
  'a language model of the AI SDK provider specification (specificationVersion v2, v3 or v4, provider, modelId, doGenerate, doStream)',
  isLanguageModel,
);

const hooksSchema = strict(
  { sessionStart: func.optional(), preToolUse: func.optional(), postToolUse: func.optional(), sessionEnd: func.optional() },
  'an object of hook functions (sessionStart, preToolUse, postToolUse, sessionEnd)',
);

const skillSchema = strict({ name: nonEmptyText, description: text.optional(), content: text }, 'a skill ({ name, content, description? })');

/** `model` wherever one is chosen (agents, prompts, the judge, the drafter). */
export const modelSetting = union([nonEmptyText, languageModel], 'a non-empty string (an Anthropic model id) or an AI SDK language model (v2, v3 or v4)');

/**
 * The settings an agent, a prompt and a call's overrides share (AgentSettings). The API's own
 * ranges: temperature 0..1, max_tokens a positive integer, stop sequences non-empty strings.
 */
export const agentSettingsShape = {
  system: text.optional(),
  model: modelSetting.optional(),
  maxTokens: integer(1).optional(),
  temperature: numberIn(0, 1).optional(),
  stop: array(nonEmptyText, 'an array of non-empty strings').optional(),
  tools: array(toolSchema, 'an array of tools (defineTool)').optional(),
  mcps: array(mcpServerConfigSchema, 'an array of MCP server configs').optional(),
  skills: array(skillSchema, 'an array of skills').optional(),
  hooks: hooksSchema.optional(),
  env: stringRecord.optional(),
  enableCache: cacheSettingSchema.optional(),
  enableReflection: reflectionSettingSchema.optional(),
  maxTurns: integer(1).optional(),
  structuredOutput: oneOf(['native', 'tool']).optional(),
};

/** `agent.prompt(p, overrides)` and the other per-call overrides. */
export const promptOverridesSchema = strict(agentSettingsShape, 'an object of agent settings');
