import type { Attributes } from '@opentelemetry/api';
import { budgetStandings } from '../budgets/node-budgets.js';
import type { WorkflowNode } from '../types/node.js';

/**
 * How the budgets set on `node` stood when its span ended: for each budget (named by what it is
 * set on: `workflow`, `step`, `task`, `agent`, `prompt`; one of each per node at most) and each of
 * its limits, `groundswell.budget.<owner>.<limit>.limit`, `.spent` and `.reserved`.
 * Undefined for a node without budgets (almost all of them).
 */
export function budgetStandingAttributes(node: WorkflowNode): Attributes | undefined {
  const standings = budgetStandings(node);
  if (standings.length === 0) return undefined;
  const attributes: Attributes = {};
  for (const budget of standings) {
    const owner = budget.owner.split(' ')[0] ?? 'node';
    for (const [dimension, limit] of Object.entries(budget.limits)) {
      const prefix = `groundswell.budget.${owner}.${dimension}`;
      attributes[`${prefix}.limit`] = limit;
      if (dimension === 'wallMs') continue;
      const metered = dimension as keyof typeof budget.spent;
      attributes[`${prefix}.spent`] = budget.spent[metered];
      attributes[`${prefix}.reserved`] = budget.reserved[metered];
    }
  }
  return attributes;
}
