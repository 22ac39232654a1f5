import { describe, expect, it, vi } from 'vitest';

describe('zod for an agent call', () => {
  it("is the user's own zod module (the same namespace an application's import('zod') gets), loaded once", async () => {
    // Fresh modules: another test file in this worker may have loaded it already.
    vi.resetModules();
    const { loadZod, loadedZod } = await import('../../src/util/load-zod.js');
    expect(loadedZod()).toBeUndefined();
    const [loaded, again] = await Promise.all([loadZod(), loadZod()]);
    expect(loaded).toBe(await import('zod'));
    expect(again).toBe(loaded);
    expect(loadedZod()).toBe(loaded);
  });
});
