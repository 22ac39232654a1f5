import type { BudgetRaise } from '../types/budget.js';
import { integer, numberIn, oneOf } from '../checks/fields.js';
import { expected } from '../checks/leaf.js';
import { strict } from '../checks/object.js';

/** Node's timers hold a signed 32-bit delay; a longer wallMs would fire at once, not later. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * A `budget` option wherever one is taken (workflow, step, task, agent, prompt): counts are
 * whole numbers >= 0, dollars a finite number >= 0, wallMs a positive number of milliseconds,
 * warnAt a share in (0, 1]. Unknown keys are refused by name.
 */
export const budgetSchema = strict(
  {
    usd: numberIn(0, Number.MAX_VALUE).optional(),
    tokens: integer(0).optional(),
    modelRequests: integer(0).optional(),
    toolCalls: integer(0).optional(),
    wallMs: expected<number>(
      `a number of milliseconds greater than 0 and at most ${MAX_TIMER_MS}`,
      (v) => typeof v === 'number' && v > 0 && v <= MAX_TIMER_MS,
    ).optional(),
    warnAt: expected<number>('a number greater than 0 and at most 1', (v) => typeof v === 'number' && v > 0 && v <= 1).optional(),
    onExceeded: oneOf(['fail', 'suspend']).optional(),
    raiseSignal: expected<string>('a non-empty signal name', (v) => typeof v === 'string' && v.trim() !== '').optional(),
  },
  'an object like { usd: 0.5, tokens: 100000 }',
);

/** The value of a budget's raise signal: new limits (at least one), each like the budget's own. */
export const budgetRaiseSchema = strict(
  {
    usd: numberIn(0, Number.MAX_VALUE).optional(),
    tokens: integer(0).optional(),
    modelRequests: integer(0).optional(),
    toolCalls: integer(0).optional(),
  },
  'an object like { usd: 1 } with the new limits',
).pipe(
  expected<BudgetRaise>(
    'at least one of usd, tokens, modelRequests, toolCalls',
    (v) => ['usd', 'tokens', 'modelRequests', 'toolCalls'].some((key) => (v as Record<string, unknown>)[key] !== undefined),
  ),
);
