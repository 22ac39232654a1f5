/**
 * A provider's family: its id up to the first dot (`openai` of `openai.chat`, `corp` of
 * `corp.gateway.chat`). Only for what people read (spans, events, errors) and for the short
 * pricing key documented first; what tells providers apart is the whole id.
 */
export function providerFamily(providerId: string): string {
  const dot = providerId.indexOf('.');
  return dot > 0 ? providerId.slice(0, dot) : providerId;
}
