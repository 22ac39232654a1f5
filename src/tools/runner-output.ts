import type { VerifierOutcome } from '../types/trajectory.js';

/** What the default reader made of a verifier's text: the outcome and the line it rests on. */
export interface RunnerReading {
  readonly outcome: VerifierOutcome;
  /** The summary (or error) line that decided a `passed` or `failed` outcome. */
  readonly line?: string;
}

/**
 * Outputs can be huge. Summaries sit at the end and compiler errors at the start, so a long output
 * is read as its head and its tail only; every line is cut before matching, so the cost is linear
 * in these bounds whatever the output.
 */
const WHOLE_CHARS = 256 * 1024;
const HEAD_CHARS = 64 * 1024;
const TAIL_CHARS = 192 * 1024;
const LINE_CHARS = 400;

type Family = 'js' | 'node-test' | 'pytest' | 'go' | 'cargo' | 'ctest' | 'tsc' | 'eslint' | 'generic';

interface Signal {
  readonly family: Family;
  /** `summary`: a runner's status or count line. `marker`: one failing item, such as an error line. */
  readonly kind: 'summary' | 'marker';
  /** `contradictory`: the line disagrees with itself (e.g. status `ok` with failures counted). */
  readonly verdict: 'passed' | 'failed' | 'contradictory';
  /** A pass counted over the whole run, not one package or binary: it holds even when the middle was not read. */
  readonly total: boolean;
  readonly line: string;
}

type Matcher = (line: string) => Signal | undefined;

/**
 * Reads the summary lines of common test runners and checkers: vitest, jest, mocha, node:test
 * (TAP and spec), pytest, go test, cargo test, ctest, tsc and eslint. A counted zero failures is
 * a pass and any counted failure a failure. It says `unknown` when it is not sure: no summary it
 * knows (a clean `tsc` or `eslint` prints nothing), only skipped tests, a line that contradicts
 * itself, an error line of a runner whose own summary says it passed, or a long output whose pass
 * rests only on per-package lines (the unread middle may hold a failure).
 */
export function readRunnerOutput(output: string): RunnerReading {
  const truncated = output.length > WHOLE_CHARS;
  const text = truncated ? `${output.slice(0, HEAD_CHARS)}\n${output.slice(-TAIL_CHARS)}` : output;
  const signals: Signal[] = [];
  // eslint-disable-next-line no-control-regex
  for (const raw of text.replace(/\u001b\[[0-9;?]*[ -/]*[@-~]/g, '').split(/\r\n|\r|\n/)) {
    const line = raw.slice(0, LINE_CHARS).trim();
    if (line === '') continue;
    for (const match of MATCHERS) {
      const signal = match(line);
      if (signal !== undefined) {
        signals.push(signal);
        break;
      }
    }
  }
  return decide(signals, truncated);
}

function decide(signals: readonly Signal[], truncated: boolean): RunnerReading {
  if (signals.some((s) => s.verdict === 'contradictory')) return { outcome: 'unknown' };
  const failedSummaries = signals.filter((s) => s.kind === 'summary' && s.verdict === 'failed');
  // Several checks in one output (lint, then tests; many packages): any failure fails the run.
  if (failedSummaries.length > 0) return { outcome: 'failed', line: telling(failedSummaries) };
  const passes = signals.filter((s) => s.verdict === 'passed');
  const markers = signals.filter((s) => s.kind === 'marker');
  // An error line of a runner whose own summary says all passed: one of them is wrong.
  if (markers.some((m) => passes.some((p) => p.family === m.family))) return { outcome: 'unknown' };
  const firstMarker = markers[0];
  if (firstMarker !== undefined) return { outcome: 'failed', line: firstMarker.line };
  const trusted = truncated ? passes.filter((p) => p.total) : passes;
  if (trusted.length === 0) return { outcome: 'unknown' };
  return { outcome: 'passed', line: telling(trusted) };
}

/** The last line with a count in it (`Tests  1 failed | 2 passed (3)` over a bare `FAIL`), else the last. */
function telling(signals: readonly Signal[]): string {
  for (let i = signals.length - 1; i >= 0; i -= 1) {
    const line = (signals[i] as Signal).line;
    if (/\d/.test(line)) return line;
  }
  return (signals[signals.length - 1] as Signal).line;
}

function summary(family: Family, verdict: Signal['verdict'], line: string, total: boolean): Signal {
  return { family, kind: 'summary', verdict, total, line };
}

function marker(family: Family, line: string): Signal {
  return { family, kind: 'marker', verdict: 'failed', total: false, line };
}

/** A verdict from counts: failures fail, passes with no failures pass, nothing counted says nothing. */
function fromCounts(family: Family, line: string, failed: number, passed: number): Signal | undefined {
  if (failed > 0) return summary(family, 'failed', line, true);
  if (passed > 0) return summary(family, 'passed', line, true);
  return undefined;
}

/** `1 failed | 2 passed` or `1 failed, 2 passed` as counts by word. */
function counts(parts: readonly string[]): Map<string, number> | undefined {
  const byWord = new Map<string, number>();
  for (const part of parts) {
    const m = /^(\d+) ([a-z]+)$/.exec(part.trim());
    if (m === null) return undefined;
    byWord.set(m[2] as string, (byWord.get(m[2] as string) ?? 0) + Number(m[1]));
  }
  return byWord;
}

function count(byWord: ReadonlyMap<string, number>, ...words: string[]): number {
  return words.reduce((sum, word) => sum + (byWord.get(word) ?? 0), 0);
}

// vitest: ` Test Files  1 failed (1)`, `      Tests  1 failed | 2 passed (3)`, `     Errors  1 error`.
const vitest: Matcher = (line) => {
  const errors = /^Errors {2,}(\d+) errors?$/.exec(line);
  if (errors !== null) return Number(errors[1]) > 0 ? summary('js', 'failed', line, true) : undefined;
  const m = /^(?:Test Files|Tests|Type Errors) {2,}(.*) \(\d+\)$/.exec(line);
  const byWord = m === null ? undefined : counts((m[1] as string).split(' | '));
  return byWord === undefined ? undefined : fromCounts('js', line, count(byWord, 'failed'), count(byWord, 'passed'));
};

// jest: `Test Suites: 1 failed, 1 total`, `Tests:       1 failed, 2 passed, 3 total`.
const jest: Matcher = (line) => {
  const m = /^(?:Test Suites|Tests): +(.*), \d+ total$/.exec(line);
  const byWord = m === null ? undefined : counts((m[1] as string).split(', '));
  return byWord === undefined ? undefined : fromCounts('js', line, count(byWord, 'failed'), count(byWord, 'passed'));
};

// mocha: `2 passing (6ms)`, `1 failing`.
const mocha: Matcher = (line) => {
  const passing = /^(\d+) passing \(\d+m?s\)$/.exec(line);
  if (passing !== null) return fromCounts('js', line, 0, Number(passing[1]));
  const failing = /^(\d+) failing$/.exec(line);
  return failing === null ? undefined : fromCounts('js', line, Number(failing[1]), 0);
};

// node:test (and other TAP producers): `# pass 2`, `# fail 0`, `# cancelled 0`; the spec reporter writes `ℹ` for `#`.
const nodeTest: Matcher = (line) => {
  const m = /^[#ℹ] +(pass|fail|cancelled) +(\d+)$/.exec(line);
  if (m === null) return undefined;
  const n = Number(m[2]);
  return m[1] === 'pass' ? fromCounts('node-test', line, 0, n) : fromCounts('node-test', line, n, 0);
};

const PYTEST_WORDS = new Set(['passed', 'failed', 'error', 'errors', 'skipped', 'deselected', 'xfailed', 'xpassed', 'warning', 'warnings', 'rerun']);

// pytest: `=== 1 failed, 2 passed in 0.15s ===` (the `=` rule is gone with -q), `FAILED tests/x.py::t - ...`.
const pytest: Matcher = (line) => {
  if (/^(?:FAILED|ERROR) \S+\.py\b/.test(line)) return marker('pytest', line);
  const inner = /^=+ (.*) =+$/.exec(line)?.[1] ?? line;
  const m = /^(\d+ [a-z]+(?:, \d+ [a-z]+)*)(?: in \d+(?:\.\d+)?s(?: \([\d:.]+\))?)?$/.exec(inner);
  const byWord = m === null ? undefined : counts((m[1] as string).split(', '));
  if (byWord === undefined || [...byWord.keys()].some((word) => !PYTEST_WORDS.has(word))) return undefined;
  return fromCounts('pytest', line, count(byWord, 'failed', 'error', 'errors'), count(byWord, 'passed'));
};

// go test: `ok  \tpkg\t0.002s`, `FAIL\tpkg\t0.002s`, `FAIL\tpkg [build failed]`, bare `PASS` / `FAIL`, `--- FAIL: TestX`.
const goTest: Matcher = (line) => {
  if (/^ok\s+\S+\s+(?:\(cached\)|\d+(?:\.\d+)?s)(?:\s|$)/.test(line)) return summary('go', 'passed', line, false);
  if (/^FAIL\s+\S+(?:\s+(?:\d+(?:\.\d+)?s|\[[a-z ]+\]))?$/.test(line)) return summary('go', 'failed', line, false);
  if (line === 'FAIL') return summary('go', 'failed', line, false);
  if (line === 'PASS') return summary('go', 'passed', line, false);
  return /^--- FAIL: /.test(line) ? marker('go', line) : undefined;
};

// cargo test: one `test result: ok. 3 passed; 0 failed; ...` per test binary; `error: could not compile ...`.
const cargo: Matcher = (line) => {
  const m = /^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed\b/.exec(line);
  if (m !== null) {
    const failed = Number(m[3]);
    if ((m[1] === 'ok') !== (failed === 0)) return summary('cargo', 'contradictory', line, false);
    if (failed > 0) return summary('cargo', 'failed', line, false);
    return Number(m[2]) > 0 ? summary('cargo', 'passed', line, false) : undefined;
  }
  // Cargo's own closing verdict on a failed build or test binary, even when no `test result` line follows.
  return /^error: (?:could not compile |test failed, to rerun|\d+ targets? failed)/.test(line) ? summary('cargo', 'failed', line, true) : undefined;
};

// ctest: `100% tests passed, 0 tests failed out of 3`; on failures also `The following tests FAILED:` (its own verdict).
const ctest: Matcher = (line) => {
  const m = /^\d+% tests passed, (\d+) tests? failed out of (\d+)$/.exec(line);
  if (m !== null) {
    // The counts decide; the percentage is rounded.
    const failed = Number(m[1]);
    return fromCounts('ctest', line, failed, Number(m[2]) - failed);
  }
  return /^(?:The following tests FAILED:|Errors while running CTest)/.test(line) ? summary('ctest', 'failed', line, true) : undefined;
};

// tsc: `src/a.ts(3,7): error TS2322: ...` (or `src/a.ts:3:7 - error TS2322:`), `Found 2 errors ...`, watch mode's `[10:31:02 AM] Found 0 errors.`.
const tsc: Matcher = (line) => {
  const m = /^(?:\[[^\]]{1,40}\] )?Found (\d+) errors?\b/.exec(line);
  if (m !== null) return Number(m[1]) > 0 ? summary('tsc', 'failed', line, true) : summary('tsc', 'passed', line, true);
  return /(?:^|\s)error TS\d{1,5}:/.test(line) ? marker('tsc', line) : undefined;
};

// eslint (stylish): `✖ 3 problems (2 errors, 1 warning)`; each problem is `1:7  error  message  rule`.
const eslint: Matcher = (line) => {
  const m = /^[✖×] \d+ problems? \((\d+) errors?, \d+ warnings?\)/.exec(line);
  if (m !== null) return Number(m[1]) > 0 ? summary('eslint', 'failed', line, true) : summary('eslint', 'passed', line, true);
  return /^\d+:\d+ +error +\S/.test(line) ? marker('eslint', line) : undefined;
};

// A plain sentence some tools print: `All 3 tests passed.`
const generic: Matcher = (line) => {
  const m = /^All (\d+) tests? passed\b/.exec(line);
  return m === null ? undefined : fromCounts('generic', line, 0, Number(m[1]));
};

const MATCHERS: readonly Matcher[] = [vitest, jest, mocha, nodeTest, pytest, goTest, cargo, ctest, tsc, eslint, generic];
