import type { ReplayDivergence } from './replay-divergence.js';

/** A divergence as a report a person reads in a terminal or a test failure. */
export function formatDivergence(divergence: ReplayDivergence): string {
  const lines = [divergence.summary, `  kind: ${divergence.kind}`, `  node: ${divergence.path}`, `  key:  ${divergence.key}`];
  for (const part of divergence.parts) {
    lines.push('', `  ${part.part} (- recorded, + now):`);
    for (const line of part.diff.split('\n')) lines.push(`    ${line}`);
  }
  return lines.join('\n');
}
