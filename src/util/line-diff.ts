/**
 * A readable line diff of two texts: unchanged lines prefixed "  ", removed "- ", added "+ ", with
 * at most `context` unchanged lines kept around each change ("…" marks what was left out). Longest
 * common subsequence over lines; texts beyond `maxLines` lines are compared by their first
 * differing line only, so a huge prompt cannot make a report slow.
 */
export function lineDiff(before: string, after: string, context = 2, maxLines = 2_000): string {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length > maxLines || b.length > maxLines) return firstDifference(a, b);
  const ops = diffOps(a, b);
  const keep = new Array<boolean>(ops.length).fill(false);
  ops.forEach((op, i) => {
    if (op.kind === ' ') return;
    for (let j = Math.max(0, i - context); j <= Math.min(ops.length - 1, i + context); j += 1) keep[j] = true;
  });
  const out: string[] = [];
  let skipped = false;
  ops.forEach((op, i) => {
    if (!keep[i]) {
      if (!skipped) out.push('  …');
      skipped = true;
      return;
    }
    skipped = false;
    out.push(`${op.kind} ${op.line}`);
  });
  return out.join('\n');
}

interface DiffOp {
  readonly kind: ' ' | '-' | '+';
  readonly line: string;
}

function diffOps(a: readonly string[], b: readonly string[]): DiffOp[] {
  // lcs(i, j): the longest common subsequence of a[i..] and b[j..], in one flat table.
  const width = b.length + 1;
  const table = new Uint32Array((a.length + 1) * width);
  const lcs = (i: number, j: number): number => table[i * width + j] ?? 0;
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      table[i * width + j] = a[i] === b[j] ? lcs(i + 1, j + 1) + 1 : Math.max(lcs(i + 1, j), lcs(i, j + 1));
    }
  }
  const ops: DiffOp[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    const left = a[i];
    const right = b[j];
    if (left !== undefined && right !== undefined && left === right) {
      ops.push({ kind: ' ', line: left });
      i += 1;
      j += 1;
    } else if (left !== undefined && (right === undefined || lcs(i + 1, j) >= lcs(i, j + 1))) {
      ops.push({ kind: '-', line: left });
      i += 1;
    } else {
      ops.push({ kind: '+', line: right ?? '' });
      j += 1;
    }
  }
  return ops;
}

function firstDifference(a: readonly string[], b: readonly string[]): string {
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at += 1;
  return [`  … ${at} equal lines`, ...(at < a.length ? [`- ${a[at]}`] : []), ...(at < b.length ? [`+ ${b[at]}`] : [])].join('\n');
}
