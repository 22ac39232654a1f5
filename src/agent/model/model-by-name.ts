import { UsageError } from '../../errors/groundswell-error.js';
import type { ModelProvider, ModelProviders } from '../../types/model-providers.js';
import { describeValue } from '../../util/describe.js';
import { closestKey } from '../../checks/closest-key.js';
import { isLanguageModel, type LanguageModelLike } from './language-model.js';

/**
 * True for a model named `provider/model`. Anthropic's ids never hold a slash, so a plain id keeps
 * going to the Anthropic client as it always did.
 */
export function isModelName(model: string): boolean {
  return model.includes('/');
}

/**
 * What a `provider/model` name stands for: the language model of a registered provider, or, for
 * `anthropic/<id>` with no provider registered under that name, the Anthropic id on the native
 * client. The agent's own providers come before those of the workflows around the call.
 */
export function modelOfName(name: string, own: ModelProviders | undefined, around: ModelProviders | undefined): LanguageModelLike | string {
  const slash = name.indexOf('/');
  const prefix = name.slice(0, slash);
  const modelId = name.slice(slash + 1);
  if (prefix === '' || modelId === '') {
    throw new UsageError(`Model "${name}" is not a provider/model name: write it like 'ollama/llama3.2', or give an Anthropic model id.`);
  }
  const provider = providerNamed(own, prefix) ?? providerNamed(around, prefix);
  if (provider === undefined) {
    if (prefix === 'anthropic') return modelId;
    throw unknownProvider(name, prefix, own, around);
  }
  return modelFrom(provider, name, modelId);
}

function providerNamed(providers: ModelProviders | undefined, name: string): ModelProvider | undefined {
  return providers !== undefined && Object.prototype.hasOwnProperty.call(providers, name) ? providers[name] : undefined;
}

// One model object per provider and id, so settings derived from it are shared by later calls.
const modelsByProvider = new WeakMap<object, Map<string, LanguageModelLike>>();

function modelFrom(provider: ModelProvider, name: string, modelId: string): LanguageModelLike {
  let models = modelsByProvider.get(provider);
  const known = models?.get(modelId);
  if (known !== undefined) return known;
  let model: unknown;
  try {
    model = typeof provider === 'function' ? provider(modelId) : provider.languageModel(modelId);
  } catch (error) {
    throw new UsageError(`Model "${name}": the provider refused the model id "${modelId}".`, { cause: error });
  }
  if (!isLanguageModel(model)) {
    throw new UsageError(
      `Model "${name}": the provider gave ${describeValue(model)}, not a language model of the AI SDK provider specification (v2, v3 or v4).`,
    );
  }
  if (models === undefined) modelsByProvider.set(provider, (models = new Map()));
  models.set(modelId, model);
  return model;
}

function unknownProvider(name: string, prefix: string, own: ModelProviders | undefined, around: ModelProviders | undefined): UsageError {
  const registered = [...new Set([...Object.keys(own ?? {}), ...Object.keys(around ?? {})])];
  const known = registered.length === 0 ? 'none is registered' : `registered: ${registered.map((p) => `"${p}"`).join(', ')}`;
  const example =
    prefix === 'ollama'
      ? `ollama: createOpenAICompatible({ name: 'ollama', baseURL: 'http://localhost:11434/v1' })`
      : `${JSON.stringify(prefix)}: <an AI SDK provider, e.g. createOpenAICompatible({ name: ${JSON.stringify(prefix)}, baseURL })>`;
  const meant = closestKey(prefix, registered);
  const hint = meant === undefined ? '' : ` Did you mean "${meant}/${name.slice(prefix.length + 1)}"?`;
  return new UsageError(
    `Model "${name}" names the provider "${prefix}", which is not registered (${known}).${hint} ` +
      `Register it once on the workflow (or the agent): providers: { ${example} }.`,
  );
}
