import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { JournalRunStore } from 'groundswell/durable';
import { runChunks, type RunChunk } from 'groundswell/web';
import { SECTION, SECTIONS } from './stream-run.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const child = fileURLToPath(new URL('./stream-child.ts', import.meta.url));

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('a run streamed while its process is killed and another resumes it', () => {
  it('gives a reader that stayed connected every chunk exactly once, the same as a fresh read of the whole run', async () => {
    dir = mkdtempSync(join(tmpdir(), 'gs-killed-'));
    const store = new JournalRunStore({ dir });
    // One process (tsx as a loader): the kill reaches the run itself.
    const proc = spawn(process.execPath, ['--import', 'tsx', child, 'start', dir, 'r'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise<void>((resolve) => proc.on('exit', () => resolve()));

    const seen: RunChunk[] = [];
    let ended = 0;
    let killed = false;
    const reading = (async () => {
      for await (const chunk of runChunks({ store, runId: 'r' }, { textField: 'answer', pollMs: 10 })) {
        seen.push(chunk);
        if (chunk.chunk.type === 'text-end') ended += 1;
        // Killed on progress, never on a clock: the second answer is stored, the run goes on.
        if (ended === 2 && !killed) {
          killed = true;
          proc.kill('SIGKILL');
        }
      }
    })();
    await exited;
    expect(killed).toBe(true);

    // Another process resumes the run: the dead holder's lease is taken over at once on this host.
    const next = spawn(process.execPath, ['--import', 'tsx', child, 'resume', dir, 'r'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    next.stdout.on('data', (data: Buffer) => (out += data.toString()));
    const code = await new Promise<number | null>((resolve) => next.on('exit', resolve));
    expect({ code, out }).toEqual({ code: 0, out: 'ready\nfinished\n' });
    await reading;

    const fresh: RunChunk[] = [];
    for await (const chunk of runChunks({ store, runId: 'r' }, { textField: 'answer' })) fresh.push(chunk);
    expect(seen).toEqual(fresh);
    expect(new Set(seen.map((c) => c.id)).size).toBe(seen.length);
    const types = seen.map((c) => c.chunk.type);
    expect(types.filter((t) => t === 'finish')).toHaveLength(1);
    expect(types.filter((t) => t === 'text-start').length).toBe(types.filter((t) => t === 'text-end').length);
    // Every section's answer is there whole; a call the kill cut short is shown as what it had written.
    const texts = new Map<string, string>();
    for (const { chunk } of seen) if (chunk.type === 'text-delta') texts.set(chunk.id, (texts.get(chunk.id) ?? '') + chunk.delta);
    expect([...texts.values()].filter((text) => text === SECTION).length).toBeGreaterThanOrEqual(SECTIONS);
    for (const text of texts.values()) expect(SECTION.startsWith(text)).toBe(true);
    await store.close();
  }, 60_000);
});
