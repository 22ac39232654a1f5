/**
 * Shared inputs for the cache and agent workloads (W4–W6): a realistic ~2 KB `data` object, a zod
 * object schema of 8 fields with refinements (built by a factory, so W4 can get fresh instances
 * whose hash is not memoised yet), and an answer that satisfies it.
 */
import { z } from 'zod';
import type { CacheKeyInput } from 'groundswell/cache';
import { json, type MessageStep } from 'groundswell/testing';

export const MODEL = 'claude-sonnet-5-5';
export const SYSTEM = 'You triage customer support tickets for an online store. Answer with the requested JSON only.';
export const USER = 'Triage this support ticket: classify it, rate its priority and say what to do next.';

/** A support ticket as an app would pass it: customer, order with line items, the conversation. */
export const TICKET_DATA: Readonly<Record<string, unknown>> = Object.freeze({
  ticket: {
    id: 'TCK-2024-118734',
    channel: 'email',
    openedAt: '2024-11-02T09:14:27Z',
    subject: 'Charged twice for order ORD-482913, one parcel missing',
    language: 'en-GB',
  },
  customer: {
    id: 'CUS-88213',
    name: 'Harriet Lindqvist',
    email: 'harriet.lindqvist@example.org',
    tier: 'gold',
    since: '2019-03-17',
    lifetimeOrders: 47,
    lifetimeValue: 3120.55,
    address: { line1: '14 Rosemary Lane', city: 'Bristol', postcode: 'BS1 4DJ', country: 'GB' },
    flags: { vip: true, fraudReview: false, marketingOptIn: false },
  },
  order: {
    id: 'ORD-482913',
    placedAt: '2024-10-28T18:02:11Z',
    currency: 'GBP',
    total: 189.97,
    payments: [
      { id: 'PAY-1', method: 'card', last4: '4242', amount: 189.97, status: 'captured', at: '2024-10-28T18:02:15Z' },
      { id: 'PAY-2', method: 'card', last4: '4242', amount: 189.97, status: 'captured', at: '2024-10-28T18:02:19Z' },
    ],
    items: [
      { sku: 'KET-ELEC-17', name: 'Electric kettle 1.7 l, brushed steel', qty: 1, unitPrice: 59.99, shipment: 'SHP-1' },
      { sku: 'MUG-STW-4PK', name: 'Stoneware mugs, set of 4', qty: 2, unitPrice: 32.5, shipment: 'SHP-2' },
      { sku: 'TEA-EB-250', name: 'English breakfast tea, 250 g', qty: 3, unitPrice: 21.66, shipment: 'SHP-2' },
    ],
    shipments: [
      { id: 'SHP-1', carrier: 'RoyalMail', tracking: 'RM482913001GB', status: 'delivered', deliveredAt: '2024-10-31T11:40:00Z' },
      { id: 'SHP-2', carrier: 'DPD', tracking: '15501234567890', status: 'in_transit', lastScan: '2024-10-30T06:12:00Z' },
    ],
  },
  conversation: [
    {
      from: 'customer',
      at: '2024-11-02T09:14:27Z',
      text: 'Hello, my card statement shows two payments of £189.97 for the same order. Also only the kettle arrived; the mugs and tea are still missing. Can you refund the duplicate charge and tell me where the rest is?',
    },
    {
      from: 'agent',
      at: '2024-11-02T10:03:51Z',
      text: 'Thanks Harriet, I can see both payments and have asked our payments team to check. DPD shows the second parcel as in transit since 30 October.',
    },
    { from: 'customer', at: '2024-11-04T08:22:09Z', text: 'Still nothing from DPD and no refund yet. This is getting frustrating.' },
  ],
  previousTickets: [
    { id: 'TCK-2023-090211', topic: 'shipping', resolved: true },
    { id: 'TCK-2024-021877', topic: 'billing', resolved: true },
  ],
});

const CATEGORIES = ['billing', 'shipping', 'product', 'account', 'other'] as const;

/**
 * The triage answer schema: 8 fields, with checks, refinements on fields and one on the object.
 * A factory, so every call is a new schema instance (same definition, same hash).
 */
export function makeTriageSchema() {
  return z
    .object({
      category: z.enum(CATEGORIES),
      secondaryCategories: z
        .array(z.enum(CATEGORIES))
        .max(3)
        .refine((list) => new Set(list).size === list.length, { message: 'categories must be unique' }),
      priority: z.number().int().min(1).max(5),
      summary: z.string().min(20).max(400),
      sentiment: z
        .number()
        .min(-1)
        .max(1)
        .refine((n) => Math.round(n * 100) === n * 100, { message: 'at most two decimals' }),
      orderId: z.string().regex(/^ORD-\d{6}$/),
      refund: z
        .object({ amount: z.number().nonnegative(), currency: z.string().length(3) })
        .refine((r) => r.currency === r.currency.toUpperCase(), { message: 'currency code must be upper case' }),
      nextActions: z
        .array(z.object({ owner: z.enum(['payments', 'logistics', 'support']), action: z.string().min(5) }))
        .min(1)
        .max(5),
    })
    .refine((t) => t.category !== 'billing' || t.refund.amount > 0, {
      message: 'a billing ticket needs a refund amount',
      path: ['refund', 'amount'],
    });
}

export type TriageSchema = ReturnType<typeof makeTriageSchema>;

/** What the scripted model answers; valid for {@link makeTriageSchema}. */
export const TRIAGE_ANSWER = Object.freeze({
  category: 'billing',
  secondaryCategories: ['shipping'],
  priority: 2,
  summary: 'Gold customer was charged twice for ORD-482913 and one of two parcels has not arrived after five days.',
  sentiment: -0.6,
  orderId: 'ORD-482913',
  refund: { amount: 189.97, currency: 'GBP' },
  nextActions: [
    { owner: 'payments', action: 'Refund duplicate payment PAY-2 of 189.97 GBP' },
    { owner: 'logistics', action: 'Open a DPD trace for parcel 15501234567890' },
    { owner: 'support', action: 'Reply to the customer with refund and trace references' },
  ],
});

/** The one step every scripted responder in W5/W6 returns (steps are frozen, safe to reuse). */
export const ANSWER_STEP: MessageStep = json(TRIAGE_ANSWER, { usage: { input_tokens: 812, output_tokens: 164 } });

/** Compact JSON size of the data, for the table captions. */
export function dataBytes(): number {
  return Buffer.byteLength(JSON.stringify(TICKET_DATA), 'utf8');
}

/** The cache key input exactly as the cache interceptor builds it for a prompt without tools, MCPs or skills. */
export function keyInput(schema: TriageSchema): CacheKeyInput {
  return {
    user: USER,
    data: TICKET_DATA,
    system: SYSTEM,
    model: MODEL,
    sampling: { maxTokens: 4096 },
    tools: [],
    mcps: [],
    skills: [],
    responseSchema: schema,
  };
}
