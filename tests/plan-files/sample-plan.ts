/** A plan in the shape the drafting prompt teaches: two goals, every section, the fold. */
export const SAMPLE_PLAN = `# Retry flaky uploads

Uploads to the archive fail about once a day. The human wants them retried so nightly jobs finish.

## User voice

- > "the nightly upload should not die because S3 hiccups once"
- > "don't retry forever, 3 tries is plenty"

## Goals

1. [ ] goal: Retry failed uploads with backoff
  - subtle failure mode: the retry wraps a call that never throws, so it never runs
  - discriminator: a test where the fake store fails twice, then succeeds, and the upload ends ok
    with three recorded attempts
  - verify: npx vitest run tests/upload/retry.test.ts
  - tasks:
    1. [x] add a fake store that fails on demand
    2. [ ] wrap the upload call
  - evidence: (empty until sign-off)
2. [/] goal: Report the final failure after the last retry
  - subtle failure mode: the error is swallowed and the job exits 0
  - discriminator: the job exits 1 and the log names the object key
  - tasks:
    1. [ ] exit code
  - evidence:
    - tests/upload/report.test.ts "exits 1 after three failures": passed, see .ci/out/report.txt
      which quotes "exit code 1 (key=archive/2024.tar)"
    - git diff src/upload/report.ts: the catch now rethrows

## Future work / out of scope

- ~~retry downloads too~~ (rejected by the human: downloads are idempotent already)

<!-- the fold: everything below here is durable memory, not the working set -->

## Log
### 2024-05-01
- drafted the plan

## Learnings

- the fake store must reset between tests

## Papercuts - problems, gotchas, suggestions

## Appendix (context, not approved)

1. [ ] goal: an idea that is not approved
`;

/** The same plan with CRLF endings, trailing whitespace, unicode, and no final newline. */
export const AWKWARD_PLAN = SAMPLE_PLAN.replace('the log names the object key', 'the log names the object key — ✅ 日本語 🚀  ')
  .replace('## Learnings', '## Learnings   ')
  .replace(/\n$/, '')
  .replace(/\n/g, '\r\n');
