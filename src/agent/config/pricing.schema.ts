import { record } from '../../checks/collections.js';
import { numberIn, strict } from '../../checks/config-fields.js';

const price = numberIn(0, Number.MAX_VALUE);
const modelPriceSchema = strict(
  { inputPerMTok: price, outputPerMTok: price, cacheWritePerMTok: price.optional(), cacheReadPerMTok: price.optional() },
  'a price like { inputPerMTok: 3, outputPerMTok: 15 }',
);

/** Prices per model id (`Pricing`), shared by the agent config and the judge settings. */
export const pricingSchema = record(modelPriceSchema, 'an object mapping model ids to prices');
