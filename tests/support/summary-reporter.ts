import { mkdirSync, writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

/**
 * Prints one plain `N passed, N failed` line per run and writes the counts to
 * `.tmp/test-counts-<project>.json`, so `.ci/run` can print one total for both decorator modes.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    let project = 'tc39';
    for (const module of testModules) {
      project = module.project.name || project;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') counts.passed += 1;
        else if (state === 'failed') counts.failed += 1;
        else counts.skipped += 1;
      }
    }
    mkdirSync('.tmp', { recursive: true });
    writeFileSync(`.tmp/test-counts-${project}.json`, JSON.stringify(counts));
    console.log(`${project}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  }
}
