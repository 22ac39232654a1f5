/** What the model adapter and plan of a call are, as far as keys need them. */
interface ModelOfCall {
  readonly model: { readonly provider: string };
  readonly plan: { readonly model: string };
}

/**
 * The model as cache keys and durable fingerprints name it: the Anthropic model id as it always
 * was (stored keys stay valid), any other provider's model as `provider/model` with the whole
 * provider id (`corp.gateway.chat/m`), so the same model id on two providers never shares an
 * answer, whatever their names have in common.
 */
export function modelKeyOf(call: ModelOfCall): string {
  return call.model.provider === 'anthropic' ? call.plan.model : `${call.model.provider}/${call.plan.model}`;
}
