// Outputs of common test runners and checkers, written for these tests in each tool's own format
// (summary lines verbatim; paths and names made up). Go's columns are tab-separated, as go prints them.

export const vitestPass = `
 RUN  v4.1.12 /home/dev/calc

 ✓ tests/math.test.ts (3 tests) 2ms

 Test Files  1 passed (1)
      Tests  3 passed (3)
   Start at  10:21:07
   Duration  312ms (transform 25ms, setup 0ms, collect 20ms, tests 2ms, environment 0ms, prepare 61ms)
`;

export const vitestFail = `
 RUN  v4.1.12 /home/dev/calc

 ❯ tests/math.test.ts (3 tests | 1 failed) 5ms
   × adds two numbers 4ms
     → expected 5 to be 4

⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯

 FAIL  tests/math.test.ts > adds two numbers
AssertionError: expected 5 to be 4 // Object.is equality

- Expected
+ Received

- 4
+ 5

 ❯ tests/math.test.ts:6:23

⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯⎯[1/1]⎯

 Test Files  1 failed (1)
      Tests  1 failed | 2 passed (3)
   Start at  10:22:40
   Duration  330ms (transform 27ms, setup 0ms, collect 21ms, tests 5ms, environment 0ms, prepare 60ms)
`;

/** Every test passed, but an unhandled error was caught: vitest exits 1. */
export const vitestUnhandledError = `
 ✓ tests/math.test.ts (3 tests) 2ms

⎯⎯⎯⎯⎯⎯ Unhandled Errors ⎯⎯⎯⎯⎯⎯

Vitest caught 1 unhandled error during the test run.
This might cause false positive tests. Resolve unhandled errors to make sure your tests are not affected.

 Test Files  1 passed (1)
      Tests  3 passed (3)
     Errors  1 error
   Start at  10:25:01
   Duration  301ms
`;

export const vitestSkippedOnly = `
 ↓ tests/math.test.ts (3 tests | 3 skipped)

 Test Files  1 skipped (1)
      Tests  3 skipped (3)
   Start at  10:26:11
   Duration  280ms
`;

export const jestPass = `PASS src/sum.test.js
  sum
    ✓ adds 1 + 2 to equal 3 (2 ms)
    ✓ adds negatives (1 ms)
    ✓ adds zero

Test Suites: 1 passed, 1 total
Tests:       3 passed, 3 total
Snapshots:   0 total
Time:        0.512 s
Ran all test suites.
`;

export const jestFail = `FAIL src/sum.test.js
  sum
    ✕ adds 1 + 2 to equal 3 (4 ms)
    ✓ adds negatives (1 ms)
    ✓ adds zero

  ● sum › adds 1 + 2 to equal 3

    expect(received).toBe(expected) // Object.is equality

    Expected: 3
    Received: 4

Test Suites: 1 failed, 1 total
Tests:       1 failed, 2 passed, 3 total
Snapshots:   0 total
Time:        0.61 s
Ran all test suites.
`;

export const mochaPass = `

  sum
    ✔ adds 1 + 2
    ✔ adds negatives


  2 passing (6ms)

`;

export const mochaFail = `

  sum
    ✔ adds negatives
    1) adds 1 + 2


  1 passing (7ms)
  1 failing

  1) sum
       adds 1 + 2:
     AssertionError [ERR_ASSERTION]: 4 == 3
`;

export const nodeTestTapPass = `TAP version 13
# Subtest: adds
ok 1 - adds
  ---
  duration_ms: 0.61
  ...
# Subtest: subtracts
ok 2 - subtracts
  ---
  duration_ms: 0.12
  ...
1..2
# tests 2
# suites 0
# pass 2
# fail 0
# cancelled 0
# skipped 0
# todo 0
# duration_ms 48.91
`;

export const nodeTestTapFail = `TAP version 13
# Subtest: adds
not ok 1 - adds
  ---
  duration_ms: 0.9
  failureType: 'testCodeFailure'
  error: 'Expected values to be strictly equal:\\n\\n4 !== 3\\n'
  code: 'ERR_ASSERTION'
  ...
# Subtest: subtracts
ok 2 - subtracts
  ---
  duration_ms: 0.12
  ...
1..2
# tests 2
# suites 0
# pass 1
# fail 1
# cancelled 0
# skipped 0
# todo 0
# duration_ms 51.3
`;

export const nodeTestSpecPass = `✔ adds (0.571ms)
✔ subtracts (0.09ms)
ℹ tests 2
ℹ suites 0
ℹ pass 2
ℹ fail 0
ℹ cancelled 0
ℹ skipped 0
ℹ todo 0
ℹ duration_ms 45.12
`;

export const nodeTestSpecFail = `✖ adds (0.912ms)
✔ subtracts (0.101ms)
ℹ tests 2
ℹ suites 0
ℹ pass 1
ℹ fail 1
ℹ cancelled 0
ℹ skipped 0
ℹ todo 0
ℹ duration_ms 47.88

✖ failing tests:

test at calc.test.mjs:4:1
✖ adds (0.912ms)
  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:

  4 !== 3
`;

export const pytestPass = `============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0
rootdir: /home/dev/calc
collected 3 items

tests/test_calc.py ...                                                   [100%]

============================== 3 passed in 0.12s ===============================
`;

export const pytestFail = `============================= test session starts ==============================
platform linux -- Python 3.12.3, pytest-8.3.2, pluggy-1.5.0
rootdir: /home/dev/calc
collected 3 items

tests/test_calc.py F..                                                   [100%]

=================================== FAILURES ===================================
___________________________________ test_add ___________________________________

    def test_add():
>       assert add(2, 2) == 4
E       assert 5 == 4
E        +  where 5 = add(2, 2)

tests/test_calc.py:4: AssertionError
=========================== short test summary info ============================
FAILED tests/test_calc.py::test_add - assert 5 == 4
========================= 1 failed, 2 passed in 0.15s ==========================
`;

export const pytestQuietFail = `F..                                                                      [100%]
1 failed, 2 passed in 0.09s
`;

export const pytestCollectionError = `============================= test session starts ==============================
collected 0 items / 1 error

==================================== ERRORS ====================================
_____________________ ERROR collecting tests/test_calc.py ______________________
ImportError while importing test module '/home/dev/calc/tests/test_calc.py'.
=========================== short test summary info ============================
ERROR tests/test_calc.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
=============================== 1 error in 0.07s ===============================
`;

export const pytestPassWithWarnings = `tests/test_calc.py ...                                                   [100%]

=============================== warnings summary ===============================
tests/test_calc.py::test_add
  /home/dev/calc/calc.py:3: DeprecationWarning: use add2
    warnings.warn("use add2", DeprecationWarning)

-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html
======================== 3 passed, 1 warning in 0.11s =========================
`;

export const pytestNoTests = `============================= test session starts ==============================
collected 0 items

============================ no tests ran in 0.01s =============================
`;

export const goPass = 'ok  \texample.com/calc\t0.002s\n';

export const goPassVerbose = `=== RUN   TestAdd
--- PASS: TestAdd (0.00s)
=== RUN   TestSub
--- PASS: TestSub (0.00s)
PASS
ok  \texample.com/calc\t0.003s
`;

export const goFail = `--- FAIL: TestAdd (0.00s)
    calc_test.go:9: Add(2, 2) = 5, want 4
FAIL
FAIL\texample.com/calc\t0.002s
FAIL
`;

/** Several packages: one fails in the middle, the last line is a pass. */
export const goFailAmongPasses = `ok  \texample.com/calc/parse\t0.004s
--- FAIL: TestAdd (0.00s)
    calc_test.go:9: Add(2, 2) = 5, want 4
FAIL
FAIL\texample.com/calc\t0.002s
?   \texample.com/calc/cmd\t[no test files]
ok  \texample.com/calc/format\t(cached)
FAIL
`;

export const goBuildFail = `# example.com/calc [example.com/calc.test]
./calc_test.go:9:5: undefined: Addd
FAIL\texample.com/calc [build failed]
FAIL
`;

export const cargoPass = `   Compiling calc v0.1.0 (/home/dev/calc)
    Finished \`test\` profile [unoptimized + debuginfo] target(s) in 0.52s
     Running unittests src/lib.rs (target/debug/deps/calc-1a2b3c4d5e6f7a8b)

running 3 tests
test tests::adds ... ok
test tests::multiplies ... ok
test tests::subtracts ... ok

test result: ok. 3 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

   Doc-tests calc

running 0 tests

test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

`;

export const cargoFail = `    Finished \`test\` profile [unoptimized + debuginfo] target(s) in 0.31s
     Running unittests src/lib.rs (target/debug/deps/calc-1a2b3c4d5e6f7a8b)

running 3 tests
test tests::adds ... FAILED
test tests::multiplies ... ok
test tests::subtracts ... ok

failures:

---- tests::adds stdout ----

thread 'tests::adds' panicked at src/lib.rs:12:9:
assertion \`left == right\` failed
  left: 5
 right: 4
note: run with \`RUST_BACKTRACE=1\` environment variable to display a backtrace


failures:
    tests::adds

test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s

error: test failed, to rerun pass \`--lib\`
`;

export const cargoCompileError = `   Compiling calc v0.1.0 (/home/dev/calc)
error[E0308]: mismatched types
 --> src/lib.rs:2:5
  |
1 | pub fn add(a: i32, b: i32) -> i32 {
  |                               --- expected \`i32\` because of return type
2 |     "four"
  |     ^^^^^^ expected \`i32\`, found \`&str\`

For more information about this error, try \`rustc --explain E0308\`.
error: could not compile \`calc\` (lib) due to 1 previous error
`;

export const ctestPass = `Test project /home/dev/calc/build
    Start 1: adds
1/3 Test #1: adds .............................   Passed    0.01 sec
    Start 2: subtracts
2/3 Test #2: subtracts ........................   Passed    0.01 sec
    Start 3: multiplies
3/3 Test #3: multiplies .......................   Passed    0.01 sec

100% tests passed, 0 tests failed out of 3

Total Test time (real) =   0.04 sec
`;

export const ctestFail = `Test project /home/dev/calc/build
    Start 1: adds
1/3 Test #1: adds .............................   Passed    0.01 sec
    Start 2: subtracts
2/3 Test #2: subtracts ........................***Failed    0.01 sec
    Start 3: multiplies
3/3 Test #3: multiplies .......................   Passed    0.01 sec

67% tests passed, 1 tests failed out of 3

Total Test time (real) =   0.05 sec

The following tests FAILED:
\t  2 - subtracts (Failed)
Errors while running CTest
`;

export const tscPlainErrors = `src/index.ts(3,7): error TS2322: Type 'number' is not assignable to type 'string'.
src/index.ts(8,1): error TS2304: Cannot find name 'foo'.
`;

export const tscPrettyErrors = `src/index.ts:3:7 - error TS2322: Type 'number' is not assignable to type 'string'.

3 const name: string = 1;
        ~~~~

src/index.ts:8:1 - error TS2304: Cannot find name 'foo'.

8 foo();
  ~~~


Found 2 errors in the same file, starting at: src/index.ts:3

`;

export const tscWatchClean = `[10:31:02 AM] File change detected. Starting incremental compilation...

[10:31:02 AM] Found 0 errors. Watching for file changes.
`;

export const eslintErrors = `
/home/dev/calc/src/index.js
  1:7  error    'unused' is assigned a value but never used  no-unused-vars
  3:1  warning  Unexpected console statement                 no-console
  9:3  error    Unreachable code                             no-unreachable

✖ 3 problems (2 errors, 1 warning)

`;

export const eslintWarningsOnly = `
/home/dev/calc/src/index.js
  3:1  warning  Unexpected console statement  no-console

✖ 1 problem (0 errors, 1 warning)

`;
