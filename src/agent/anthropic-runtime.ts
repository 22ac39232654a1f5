/**
 * The parts of the Anthropic SDK groundswell uses at run time. Only `load-anthropic-runtime.ts`
 * imports this module, dynamically: `import 'groundswell'` does not load the SDK. (Tagged
 * public because the unused-export check cannot follow names read off a dynamic import.)
 */
import AnthropicSdk, { APIError as SdkApiError } from '@anthropic-ai/sdk';

/** @public */
export const Anthropic = AnthropicSdk;
/** @public */
export const APIError = SdkApiError;
