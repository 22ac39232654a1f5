import { describe, expect, it } from 'vitest';
import { readRunnerOutput } from '../../src/tools/runner-output.js';
import { decideVerifierOutcome, readVerifierResult } from '../../src/tools/verifier-outcome.js';
import { TrajectoryTracker } from '../../src/trajectory/trajectory-tracker.js';
import type { VerifierOutcome } from '../../src/types/trajectory.js';
import * as sample from './runner-samples.js';

// Issue #10, item 16: these three passing summaries were read as failures (they contain "failed" or "errors").
const ISSUE_PASSES: Array<[string, string]> = [
  ['cargo', 'test result: ok. 3 passed; 0 failed'],
  ['ctest', '100% tests passed, 0 tests failed out of 3'],
  ['plain sentence', 'All 3 tests passed. No errors.'],
];

const TABLE: Array<[string, string, VerifierOutcome]> = [
  ...ISSUE_PASSES.map(([name, text]) => [`issue: ${name}`, text, 'passed'] as [string, string, VerifierOutcome]),
  ['vitest pass', sample.vitestPass, 'passed'],
  ['vitest fail', sample.vitestFail, 'failed'],
  ['vitest: tests passed, an unhandled error', sample.vitestUnhandledError, 'failed'],
  ['vitest: only skipped tests', sample.vitestSkippedOnly, 'unknown'],
  ['jest pass', sample.jestPass, 'passed'],
  ['jest fail', sample.jestFail, 'failed'],
  ['mocha pass', sample.mochaPass, 'passed'],
  ['mocha fail', sample.mochaFail, 'failed'],
  ['node:test TAP pass', sample.nodeTestTapPass, 'passed'],
  ['node:test TAP fail', sample.nodeTestTapFail, 'failed'],
  ['node:test spec pass (ℹ fail 0)', sample.nodeTestSpecPass, 'passed'],
  ['node:test spec fail', sample.nodeTestSpecFail, 'failed'],
  ['pytest pass', sample.pytestPass, 'passed'],
  ['pytest fail', sample.pytestFail, 'failed'],
  ['pytest -q fail', sample.pytestQuietFail, 'failed'],
  ['pytest counts without a duration', '1 failed, 2 passed', 'failed'],
  ['pytest collection error', sample.pytestCollectionError, 'failed'],
  ['pytest pass with a warning', sample.pytestPassWithWarnings, 'passed'],
  ['pytest: no tests ran', sample.pytestNoTests, 'unknown'],
  ['go test pass', sample.goPass, 'passed'],
  ['go test -v pass', sample.goPassVerbose, 'passed'],
  ['go test fail', sample.goFail, 'failed'],
  ['go test: one package fails among passing ones', sample.goFailAmongPasses, 'failed'],
  ['go test: build failed', sample.goBuildFail, 'failed'],
  ['cargo test pass (with 0 doc-tests)', sample.cargoPass, 'passed'],
  ['cargo test fail', sample.cargoFail, 'failed'],
  ['cargo: compile error', sample.cargoCompileError, 'failed'],
  ['cargo: one binary passes, the next crashes before its summary', `${sample.cargoPass}     Running tests/it.rs (target/debug/deps/it-9f8e7d)\nerror: test failed, to rerun pass \`--test it\`\n`, 'failed'],
  ['ctest pass', sample.ctestPass, 'passed'],
  ['ctest fail', sample.ctestFail, 'failed'],
  ['tsc errors (plain)', sample.tscPlainErrors, 'failed'],
  ['tsc errors (pretty, Found 2 errors)', sample.tscPrettyErrors, 'failed'],
  ['tsc --watch clean (Found 0 errors)', sample.tscWatchClean, 'passed'],
  ['eslint errors', sample.eslintErrors, 'failed'],
  ['eslint warnings only (0 errors)', sample.eslintWarningsOnly, 'passed'],
  // Silence is not evidence: a clean tsc or eslint prints nothing, and so does a command that never ran.
  ['empty output', '', 'unknown'],
  ['unrecognised text', 'Done. Checked 12 files.', 'unknown'],
  ['prose with failure words but no summary', 'Retrying after an error; the previous attempt failed.', 'unknown'],
  // Contradictions: a status that disagrees with its own counts, an error line under a clean summary.
  ['cargo: ok with failures counted', 'test result: ok. 2 passed; 1 failed; 0 ignored', 'unknown'],
  ['cargo: FAILED with no failure counted', 'test result: FAILED. 3 passed; 0 failed; 0 ignored', 'unknown'],
  ['tsc: error line but Found 0 errors', "src/a.ts(1,7): error TS2322: Type 'number' is not assignable to type 'string'.\nFound 0 errors.", 'unknown'],
  // Several checks in one output: any failure fails the run.
  ['eslint fails, then vitest passes', `${sample.eslintErrors}\n${sample.vitestPass}`, 'failed'],
  ['tsc clean (silent), then vitest passes', sample.vitestPass, 'passed'],
  ['coloured output (ANSI codes)', '\u001b[32mtest result: ok\u001b[0m. 3 passed; 0 failed; 0 ignored', 'passed'],
  ['Windows line endings', sample.pytestFail.replace(/\n/g, '\r\n'), 'failed'],
];

describe('readRunnerOutput: the summaries of common runners', () => {
  it.each(TABLE.map(([name, output, expected]) => ({ name, output, expected })))('$name → $expected', ({ output, expected }) => {
    expect(readRunnerOutput(output).outcome).toBe(expected);
  });

  it('names the line a decided outcome rests on', () => {
    expect(readRunnerOutput(sample.vitestFail).line).toBe('Tests  1 failed | 2 passed (3)');
    expect(readRunnerOutput(sample.cargoPass).line).toBe('test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s');
    expect(readRunnerOutput(sample.goFail).line).toBe('FAIL\texample.com/calc\t0.002s');
    expect(readRunnerOutput(sample.tscPlainErrors).line).toContain('error TS2322');
    expect(readRunnerOutput('no summary here').line).toBeUndefined();
  });
});

describe('readRunnerOutput: bounded on huge outputs', () => {
  const noise = 'x'.repeat(100) + '\n';

  it('finds the summary at the end of a multi-megabyte log', () => {
    expect(readRunnerOutput(noise.repeat(40_000) + sample.jestFail).outcome).toBe('failed');
    expect(readRunnerOutput(noise.repeat(40_000) + sample.jestPass).outcome).toBe('passed');
  });

  it('finds compiler errors at the start of a long log', () => {
    expect(readRunnerOutput(sample.tscPlainErrors + noise.repeat(40_000)).outcome).toBe('failed');
  });

  it('does not trust per-package passes when the middle of a long log was not read', () => {
    // The middle, never read, could hold a failing package; the tail only shows passing ones.
    const log = `${sample.goPass}${noise.repeat(40_000)}FAIL\texample.com/calc/mid\t0.1s\n${noise.repeat(4_000)}${sample.goPass}`;
    expect(readRunnerOutput(log).outcome).toBe('unknown');
  });

  it('reads a 4 MB output of long, summary-like lines without deciding anything from them', () => {
    // Near-misses of the summary patterns, the input a backtracking pattern would choke on.
    const hostile = `${'= 1 passed, '.repeat(400)}\n`.repeat(800) + `${'Tests  1 passed | '.repeat(300)}\n`.repeat(400);
    expect(readRunnerOutput(hostile).outcome).toBe('unknown');
  });
});

describe('readVerifierResult: structured results', () => {
  it.each<[string, unknown, VerifierOutcome]>([
    ['outcome field', { outcome: 'passed', details: 'x' }, 'passed'],
    ['outcome unknown', { outcome: 'unknown' }, 'unknown'],
    ['passed: false', { passed: false }, 'failed'],
    ['ok: true', { ok: true }, 'passed'],
    ['failed: true (execa-style)', { failed: true, stdout: '' }, 'failed'],
    ['exitCode 0 with silent output (clean tsc)', { exitCode: 0, stdout: '' }, 'passed'],
    ['exitCode 2 with tsc errors', { exitCode: 2, stdout: sample.tscPlainErrors }, 'failed'],
    ['fields that disagree', { passed: true, exitCode: 1 }, 'unknown'],
    ['no declared outcome: its stdout is read', { stdout: sample.cargoPass, stderr: '' }, 'passed'],
    ['no declared outcome and no text', { count: 3 }, 'unknown'],
    ['JSON text', '{"passed": false, "log": "..."}', 'failed'],
    ['a number', 42, 'unknown'],
    ['undefined', undefined, 'unknown'],
  ])('%s', (_name, result, expected) => {
    expect(readVerifierResult(result)).toBe(expected);
  });

  it('a result whose getters throw reads as unknown instead of throwing', () => {
    const hostile = new Proxy({}, { get: () => { throw new Error('boom'); } });
    expect(readVerifierResult(hostile)).toBe('unknown');
  });
});

describe('decideVerifierOutcome: error, then the tool verdict, then the default reading', () => {
  it('an error is a failure, whatever the output or the verdict says', () => {
    expect(decideVerifierOutcome(sample.cargoPass, true, () => 'passed')).toBe('failed');
  });

  it("the tool's verdict wins over the default reading", () => {
    expect(decideVerifierOutcome(sample.cargoPass, false, () => 'failed')).toBe('failed');
  });

  it('a verdict that returns undefined leaves it to the default reading', () => {
    expect(decideVerifierOutcome(sample.cargoFail, false, () => undefined)).toBe('failed');
  });

  it('a verdict that throws or returns something else is unknown, never a failure', () => {
    expect(decideVerifierOutcome(sample.cargoFail, false, () => { throw new Error('bad reader'); })).toBe('unknown');
    expect(decideVerifierOutcome(sample.cargoFail, false, () => true)).toBe('unknown');
    expect(decideVerifierOutcome(sample.cargoFail, false, () => Promise.resolve('passed'))).toBe('unknown');
  });
});

describe('the trajectory: a passing summary right after a change', () => {
  it.each(ISSUE_PASSES)('%s output is a pass: on trajectory, nothing to verify again', (_name, output) => {
    const tracker = new TrajectoryTracker('shadow', 'off', 'Fix the adder', (text) => text);
    tracker.record({ turn: 1, toolName: 'file_edit', effect: 'mutate', target: 'calc.rs', input: { n: 1 }, output: 'edited', isError: false, blocked: false });
    tracker.record({ turn: 2, toolName: 'run_tests', effect: 'verify', input: {}, output, isError: false, blocked: false });
    const checkpoint = tracker.beforeRequest(3)?.checkpoint;
    expect(checkpoint?.assessment).toBe('on_trajectory');
    expect(checkpoint?.nextAction).not.toMatch(/verif|run .* again/i);
    expect(checkpoint?.groundedFacts.at(-1)?.outcome).toBe('passed');
  });

  it("a verifier's fact shows its summary line, masked, not the head of its log", () => {
    const tracker = new TrajectoryTracker('shadow', 'off', 'Fix the adder', (text) => text.replaceAll('hunter2', '***'));
    const output = `   Compiling calc v0.1.0 (/home/hunter2/calc)\n${sample.cargoPass}All 3 tests passed for hunter2\n`;
    tracker.record({ turn: 1, toolName: 'run_tests', effect: 'verify', input: {}, output, isError: false, blocked: false });
    const fact = tracker.beforeRequest(2)?.checkpoint.groundedFacts.at(-1);
    expect(fact?.statement).toBe('run_tests: verifier passed: All 3 tests passed for ***');
    expect(JSON.stringify(fact)).not.toContain('hunter2');
  });
});
