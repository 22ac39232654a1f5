/**
 * The table rows of an agent workload measured call by call against its floor (W6, W12): per
 * side, the agent's row (the gated one with its target and status) and the floor's, and one line
 * saying how many calls each side left out as the host's stalls.
 */
import { pairedRatio, type CallPairs } from './call-pairs.js';
import { fixed2, fmtUs, int, recordRatio } from './harness.js';

export interface PairSide {
  /** Where the calls ran, e.g. "inside a workflow step". */
  readonly where: string;
  readonly pairs: CallPairs;
  /** What the floor called, shown after "FLOOR: ". */
  readonly floor: string;
  /** Whether this side's ratio is the workload's gate (the others print as info). */
  readonly gated: boolean;
}

export interface PairGate {
  readonly workload: string;
  readonly measurement: string;
  readonly target: number;
}

/** Rows of 6 columns: variant, median/call, ratio, all calls, target, status. */
export function pairRows(sides: readonly PairSide[], gate: PairGate): { rows: string[][]; stalls: string[] } {
  const rows: string[][] = [];
  const stalls: string[] = [];
  for (const { where, pairs, floor, gated } of sides) {
    const result = pairedRatio(pairs);
    rows.push([
      `${where}: agent.prompt()${gated ? '' : ' (info)'}`,
      fmtUs(result.workloadMedianNs),
      `${fixed2(result.ratio)}x`,
      `${fixed2(result.rawRatio)}x`,
      gated ? `≤ ${fixed2(gate.target)}x` : '-',
      gated ? recordRatio(gate.workload, gate.measurement, result.ratio, gate.target) : '-',
    ]);
    rows.push([`${where}: FLOOR: ${floor}`, fmtUs(result.floorMedianNs), '1.00x', '-', '-', '-']);
    stalls.push(
      `${where}: ${int(result.stalledWorkload)} agent and ${int(result.stalledFloor)} floor calls of ${int(result.pairs)} pairs left out, ` +
        `${int(result.gcWorkload)} and ${int(result.gcFloor)} kept as GC pauses`,
    );
  }
  return { rows, stalls };
}
