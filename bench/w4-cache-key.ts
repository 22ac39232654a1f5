/**
 * W4: cost of `cacheKey(...)` for a prompt with ~2 KB of nested `data` and an 8-field zod object
 * schema with refinements, built as the agent's cache interceptor builds it. Steady state (schema
 * hash memoised) per key, and the first call on a fresh schema instance vs the second call on the
 * same instance, to show that `schemaHash` walks each schema object once.
 */
import { cacheKey, schemaHash } from 'groundswell/cache';
import { canonicalJson } from '../src/cache/canonical-json.js';
import { dataBytes, keyInput, makeTriageSchema } from './agent-fixtures.js';
import { DEFAULT_WARMUP, elapsedNs, fixed1, fmtBytes, fmtNs, fmtUs, int, measure, median, now, section, table, verdict } from './harness.js';

const KEYS_PER_RUN = 3_000;
/** Fresh schema instances timed one call at a time (first and second call on each). */
const FRESH = 200;
const TARGET_NS_PER_KEY = 10_000;
const NAMESPACE = 'triage-agent';


/** ns below 1 µs, µs above. */
function fmtTime(ns: number): string {
  return ns < 1_000 ? fmtNs(ns) : fmtUs(ns);
}

/** Keeps results observable so the loops cannot be optimised away. */
let sink = 0;

function median1(fn: (i: number) => number, count: number): number {
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) samples.push(fn(i));
  return median(samples);
}

/** One call, timed on its own; `hrtime.bigint()` itself adds some tens of ns to each sample. */
function timeOne(fn: () => string): number {
  const start = now();
  const out = fn();
  const ns = elapsedNs(start);
  sink += out.length;
  return ns;
}

export async function runW4(): Promise<void> {
  const schema = makeTriageSchema();
  const input = keyInput(schema);
  section(
    `W4  cacheKey() of a prompt with ${fmtBytes(dataBytes())} of nested data and an 8-field zod object schema with refinements`,
  );

  // The very first call in the process: cold code (nothing has built a key yet) plus the schema walk.
  const coldNs = timeOne(() => cacheKey(input, NAMESPACE));
  const reference = cacheKey(input, NAMESPACE);

  // Steady state: the same schema object every call, so its hash comes from the memo.
  const steady = await measure(() => {
    for (let i = 0; i < KEYS_PER_RUN; i += 1) sink += cacheKey(input, NAMESPACE).length;
  });
  const perKey = steady.medianNs / KEYS_PER_RUN;

  // Fresh instances of the same definition: built before timing, so only hashing is measured.
  const freshForKey = Array.from({ length: FRESH }, makeTriageSchema);
  const freshInputs = freshForKey.map(keyInput);
  let mismatches = 0;
  const keyFirst: number[] = [];
  const keySecond: number[] = [];
  for (const freshInput of freshInputs) {
    keyFirst.push(timeOne(() => cacheKey(freshInput, NAMESPACE)));
    keySecond.push(timeOne(() => cacheKey(freshInput, NAMESPACE)));
    if (cacheKey(freshInput, NAMESPACE) !== reference) mismatches += 1;
  }
  const freshForHash = Array.from({ length: FRESH }, makeTriageSchema);
  const hashFirst: number[] = [];
  const hashSecond: number[] = [];
  for (const fresh of freshForHash) {
    hashFirst.push(timeOne(() => schemaHash(fresh)));
    hashSecond.push(timeOne(() => schemaHash(fresh)));
  }
  if (mismatches > 0) throw new Error(`W4: ${mismatches} fresh instances of the same schema gave a different key`);

  // The largest part of a steady-state key: canonical JSON of the input (schema already a hash).
  const withoutSchema = { ...input, responseSchema: schemaHash(schema) };
  const canonicalOnly = median1(() => timeOne(() => canonicalJson(withoutSchema)), 2_000);

  const kFirst = median(keyFirst);
  const kSecond = median(keySecond);
  const hFirst = median(hashFirst);
  const hSecond = median(hashSecond);
  const memoised = hSecond * 5 < hFirst && kSecond * 2 < kFirst;

  console.log(
    table(
      ['measurement', 'median', 'min', 'target', 'status'],
      [
        [
          `cacheKey(), steady state (same schema object, ${int(KEYS_PER_RUN)} keys/run)`,
          `${fmtTime(perKey)}/key`,
          `${fmtTime(steady.minNs / KEYS_PER_RUN)}/key`,
          `≤ ${int(TARGET_NS_PER_KEY / 1000)} µs/key`,
          verdict(perKey, TARGET_NS_PER_KEY),
        ],
        ['cacheKey(), 1st call on a fresh schema instance', fmtTime(kFirst), fmtTime(Math.min(...keyFirst)), '-', '-'],
        ['cacheKey(), 2nd call on that same instance', fmtTime(kSecond), fmtTime(Math.min(...keySecond)), '-', '-'],
        ['schemaHash(), 1st call on a fresh schema instance', fmtTime(hFirst), fmtTime(Math.min(...hashFirst)), '-', '-'],
        ['schemaHash(), 2nd call on that same instance', fmtTime(hSecond), fmtTime(Math.min(...hashSecond)), '-', '-'],
        ['canonicalJson() of the same input, schema as a hash (info)', fmtTime(canonicalOnly), '-', '-', '-'],
        ['cacheKey(), very first call in the process (cold code, info)', fmtTime(coldNs), '-', '-', '-'],
      ],
      ['left', 'right', 'right', 'right', 'left'],
    ),
  );
  console.log(
    `  (steady: median of ${steady.samples.length} runs after ${DEFAULT_WARMUP} warm-ups; 1st/2nd: median over ${FRESH} fresh instances\n` +
      `   of the same definition, each call timed on its own, all ${FRESH} gave the reference key;\n` +
      `   schemaHash memoised per schema object: ${memoised ? 'yes' : 'NOT EVIDENT'} — 1st/2nd call ${fixed1(hFirst / hSecond)}x for schemaHash, ` +
      `${fixed1(kFirst / kSecond)}x for cacheKey;\n` +
      `   the walk costs ~${fmtTime(kFirst - kSecond)} once per schema object, ${fmtTime(kSecond)} per key after that)`,
  );
  if (sink === 0) console.log('  (sink)');
}
