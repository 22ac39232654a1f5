import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createWorkflow, idempotencyKey, resume, RunInterruptedError, UsageError, type Workflow } from 'groundswell';
import { JournalRunStore, type RunStore } from 'groundswell/durable';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The store, failing the first settle of a step as a full disk would. */
function failingFirstSettle(store: RunStore): RunStore {
  let failed = false;
  return new Proxy(store, {
    get(target, name, receiver) {
      if (name !== 'settleStep') return Reflect.get(target, name, receiver);
      return (...args: Parameters<NonNullable<RunStore['settleStep']>>) => {
        if (failed) return target.settleStep?.(...args);
        failed = true;
        return Promise.reject(Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' }));
      };
    },
  });
}

describe('idempotencyKey()', () => {
  it('is the same when a step runs again in a resume, differs between steps, and names the run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gs-idem-'));
    dirs.push(dir);
    const store = new JournalRunStore({ dir, fsync: 'off' });
    const keys: string[] = [];
    const build = (s: RunStore) => (): Workflow<string> =>
      createWorkflow({ name: 'Pay', durable: { store: s, runId: 'pay-1' } }, async (ctx) => {
        await ctx.step('charge', async () => void keys.push(idempotencyKey()));
        await ctx.step('receipt', async () => void keys.push(idempotencyKey()));
        return 'done';
      });
    // The first settle fails: the run stops resumable, and "charge" runs again on resume.
    await expect(build(failingFirstSettle(store))().run()).rejects.toBeInstanceOf(RunInterruptedError);
    expect((await store.getRun('pay-1'))?.status).toBe('running');
    await new Promise((wake) => setTimeout(wake, 0));
    expect(await resumeWhenFree(store, build(store))).toBe('done');
    expect(keys).toHaveLength(3);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(keys[0]).toContain('pay-1');
  });

  it('outside a step of a durable run is a UsageError', async () => {
    expect(() => idempotencyKey()).toThrow(UsageError);
    const plain = createWorkflow({ name: 'Plain' }, (ctx) => ctx.step('s', async () => idempotencyKey()));
    await expect(plain.run()).rejects.toThrow(/inside a step of a durable run/);
  });
});

async function resumeWhenFree(store: RunStore, build: () => Workflow<string>): Promise<string> {
  for (;;) {
    try {
      return await resume<string>('pay-1', { store, workflows: { Pay: build } });
    } catch (error) {
      const expiresAt = (error as { expiresAt?: number }).expiresAt;
      if (expiresAt === undefined) throw error;
      await new Promise((wake) => setTimeout(wake, Math.max(0, expiresAt - Date.now()) + 20));
    }
  }
}
