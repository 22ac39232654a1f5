import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WorkflowTreeDebugger } from 'groundswell';
import { JournalRunStore } from 'groundswell/durable';
import { runCli } from '../../../src/cli/run-cli.js';
import { runFiles } from '../../../src/durable/journal/journal-run-files.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gs-cli-deep-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const DEPTH = 20_000;

/**
 * A run export whose tree is a chain DEPTH workflows deep, as JSON text built piece by piece
 * (JSON.stringify itself recurses and cannot write it; JSON.parse reads it).
 */
function deepExportText(): string {
  const opens: string[] = [];
  for (let i = 0; i < DEPTH; i += 1) {
    const parent = i === 0 ? 'null' : `"n${i - 1}"`;
    opens.push(
      `{"id":"n${i}","kind":"workflow","name":"n${i}","workflowId":"w${i}","parentId":${parent},"status":"completed",` +
        `"stateSnapshot":null,"logs":[],"events":[],"dropped":{"events":0,"logs":0,"children":0},"children":[`,
    );
  }
  return `{"format":"groundswell.run","version":1,"exportedAt":0,"root":${opens.join('')}${']}'.repeat(DEPTH)}}`;
}

function expectBounded(tree: string[]): void {
  expect(tree).toHaveLength(DEPTH);
  expect(Math.max(...tree.map((line) => line.length))).toBeLessThan(300);
  // Shallow levels keep their drawn indentation; deeper ones say their depth instead.
  expect(tree[64]).toBe(`${' '.repeat(63 * 3)}└─ ✓ n64 [workflow]`);
  expect(tree[65]).toBe('[depth 65] └─ ✓ n65 [workflow]');
  expect(tree[DEPTH - 1]).toBe(`[depth ${DEPTH - 1}] └─ ✓ n${DEPTH - 1} [workflow]`);
}

describe('a tree 20,000 levels deep', () => {
  it('runs show prints it with bounded indentation (one line per node)', async () => {
    const store = new JournalRunStore({ dir, fsync: 'off' });
    await store.createRun({ id: 'deep', rootName: 'n0', status: 'completed' });
    await store.close();
    // Written as the store keeps a tree: its tree file, read back by loadRun.
    writeFileSync(runFiles(dir, 'deep').tree, deepExportText());

    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli(['runs', 'show', 'deep', '--store', dir], { out: (text) => out.push(text), err: (text) => err.push(text) });
    expect(err.join('\n')).toBe('');
    expect(code).toBe(0);
    const lines = out.join('\n').split('\n');
    expectBounded(lines.slice(lines.indexOf('') + 1));
  });

  it('the debugger prints the same from the export', () => {
    expectBounded(new WorkflowTreeDebugger(deepExportText()).toTreeString().split('\n'));
  });
});
