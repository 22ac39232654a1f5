import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { otelObserver } from 'groundswell/otel';
import { releaseRun, reviewer, twoTurnModel } from './scripted-run.js';
import { memoryTracing, spanTreeText } from './span-helpers.js';

// The span tree of one scripted run as the in-memory exporter holds it, written to
// .tmp/span-tree.txt for the closing note of issue 14 (and checked here, so it stays true).
describe('the span tree of a scripted run, printed', () => {
  it('writes .tmp/span-tree.txt', async () => {
    const tracing = memoryTracing();
    const { workflow } = releaseRun(reviewer(twoTurnModel(), { trajectory: { checkpoint: 'always' } }));
    workflow.addObserver(await otelObserver({ tracerProvider: tracing.provider }));
    await workflow.run();
    const text = spanTreeText(tracing.spans());
    const dir = fileURLToPath(new URL('../../.tmp', import.meta.url));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'span-tree.txt'), `${text}\n`);
    expect(text.split('\n').filter((line) => !line.trimStart().startsWith('·')).map((line) => line.replace(/ \[.*$/, ''))).toEqual([
      'workflow release',
      '  step prepare',
      '  task reviews',
      '    workflow review',
      '      step check',
      '        invoke_agent reviewer',
      '          chat claude-test-1',
      '          execute_tool add',
      '          chat claude-test-1',
      '    workflow notes',
      '      step write',
    ]);
  });
});
