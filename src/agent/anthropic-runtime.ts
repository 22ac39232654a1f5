/**
 * The parts of the Anthropic SDK groundswell uses at run time. Only `load-anthropic-runtime.ts`
 * imports this module, dynamically: `import 'groundswell'` does not load the SDK.
 */
import Anthropic, { APIError } from '@anthropic-ai/sdk';
import { transformJSONSchema } from '@anthropic-ai/sdk/lib/transform-json-schema';

export { Anthropic, APIError, transformJSONSchema };
