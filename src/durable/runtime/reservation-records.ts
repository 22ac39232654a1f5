import { NO_AMOUNTS, type BudgetAmounts } from '../../budgets/budget-amounts.js';

const PREFIX = 'reserved:';

/**
 * The reservations of a durable run's model requests, kept as named data before each request is
 * sent (`reserved:<call key>#<n>`). A call that never completed (its process was killed with the
 * request in flight) left its reservations behind: the server may have received those requests,
 * so a resume books them as spent, at their worst case, before the call runs again.
 */
export class ReservationRecords {
  private readonly byCall = new Map<string, BudgetAmounts[]>();
  private readonly counts = new Map<string, number>();

  constructor(data: Readonly<Record<string, unknown>> | undefined) {
    for (const [name, value] of Object.entries(data ?? {})) {
      if (!name.startsWith(PREFIX)) continue;
      const at = name.lastIndexOf('#');
      const key = name.slice(PREFIX.length, at);
      const list = this.byCall.get(key) ?? [];
      list[Number(name.slice(at + 1))] = amountsOf(value);
      this.byCall.set(key, list);
    }
  }

  /** The data name the next reservation of the call `key` is kept under. */
  next(key: string): string {
    const n = this.counts.get(key) ?? this.byCall.get(key)?.length ?? 0;
    this.counts.set(key, n + 1);
    return `${PREFIX}${key}#${n}`;
  }

  /** What the call `key`'s requests of earlier processes held, all together (none: undefined). */
  earlier(key: string): BudgetAmounts | undefined {
    const list = this.byCall.get(key);
    if (list === undefined) return undefined;
    const total = { ...NO_AMOUNTS };
    for (const held of list) {
      if (held === undefined) continue;
      total.usd += held.usd;
      total.tokens += held.tokens;
      total.modelRequests += held.modelRequests;
      total.toolCalls += held.toolCalls;
    }
    return total;
  }
}

/** A stored reservation; anything that is not one counts as a single request (the least it can be). */
function amountsOf(value: unknown): BudgetAmounts {
  const held = value as Partial<BudgetAmounts> | null;
  const figure = (n: unknown): number => (typeof n === 'number' && Number.isFinite(n) && n >= 0 ? n : 0);
  if (typeof held !== 'object' || held === null) return { ...NO_AMOUNTS, modelRequests: 1 };
  return { usd: figure(held.usd), tokens: figure(held.tokens), modelRequests: Math.max(1, figure(held.modelRequests)), toolCalls: figure(held.toolCalls) };
}
