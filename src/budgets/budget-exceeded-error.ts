import { GroundswellError } from '../errors/groundswell-error.js';
import type { BudgetDimension, BudgetStanding } from '../types/budget.js';

/**
 * A model request or tool call was refused because it could have passed a budget's limit, or a
 * budget's wallMs ran out. Never retried: the same work would be refused again.
 */
export class BudgetExceededError extends GroundswellError implements BudgetStanding {
  readonly retryable = false;
  readonly budgetNodeId: string;
  readonly budgetPath: string;
  readonly dimension: BudgetDimension;
  readonly limit: number;
  readonly spent: number;
  readonly reserved: number;
  readonly needed: number;

  constructor(message: string, standing: BudgetStanding, options?: { cause?: unknown }) {
    super(message, options);
    this.budgetNodeId = standing.budgetNodeId;
    this.budgetPath = standing.budgetPath;
    this.dimension = standing.dimension;
    this.limit = standing.limit;
    this.spent = standing.spent;
    this.reserved = standing.reserved;
    this.needed = standing.needed;
  }
}
