/**
 * The table rows of an agent workload measured call by call against its floor (W6, W12, W13):
 * per side, the agent's row (with its target and status when that side is a gate) and the
 * floor's, and one line saying how many calls each side left out as the host's stalls.
 */
import { pairedRatio, type CallPairs } from './call-pairs.js';
import { fixed2, fmtUs, int, recordRatio } from './harness.js';

export interface PairSide {
  /** Where the calls ran, e.g. "inside a workflow step". */
  readonly where: string;
  readonly pairs: CallPairs;
  /** What the floor called, shown after "FLOOR: ". */
  readonly floor: string;
  /** What the workload side is, shown first (default "agent.prompt()"). */
  readonly workload?: string;
  /** This side's gate, when it is one (a side without prints as info). */
  readonly gate?: { readonly measurement: string; readonly target: number };
}

/** Rows of 6 columns: variant, median/call, ratio, all calls, target, status. */
export function pairRows(workload: string, sides: readonly PairSide[]): { rows: string[][]; stalls: string[] } {
  const rows: string[][] = [];
  const stalls: string[] = [];
  for (const { where, pairs, floor, gate, workload: label = 'agent.prompt()' } of sides) {
    const result = pairedRatio(pairs);
    rows.push([
      `${where}: ${label}${gate === undefined ? ' (info)' : ''}`,
      fmtUs(result.workloadMedianNs),
      `${fixed2(result.ratio)}x`,
      `${fixed2(result.rawRatio)}x`,
      gate === undefined ? '-' : `≤ ${fixed2(gate.target)}x`,
      gate === undefined ? '-' : recordRatio(workload, gate.measurement, result.ratio, gate.target),
    ]);
    rows.push([`${where}: FLOOR: ${floor}`, fmtUs(result.floorMedianNs), '1.00x', '-', '-', '-']);
    stalls.push(
      `${where}: the ${int(result.trimmed)} slowest GC-free calls of each side left out of ${int(result.pairs)} pairs ` +
        `(GC-free calls over the limit: ${int(result.stalledWorkload)} workload, ${int(result.stalledFloor)} floor; ` +
        `${int(result.gcWorkload)} and ${int(result.gcFloor)} over it with a GC pause, kept)`,
    );
  }
  return { rows, stalls };
}
