import { z } from 'zod';
import type * as Groundswell from 'groundswell';
import type * as Testing from 'groundswell/testing';
import type { RunStore } from 'groundswell/durable';
import type { World } from './world.js';
import { LEASE_MS } from './world.js';

export const EXPECTED = '10|7|0,2,4|true|shipped';
/** The signal the agent call's refund waits for (its tool use id is fixed by the script). */
export const REFUND_APPROVAL = 'approval of refund (toolu_refund)';

export interface SimLibrary {
  gs: typeof Groundswell;
  testing: typeof Testing;
}

/**
 * What every schedule runs: a step with a side effect, an agent call on the offline model inside a
 * step (its first answer asks for a refund tool that needs approval: the call waits for it, and
 * goes on from that turn once approved), a fan-out of three steps, a wait for a signal, and two
 * steps after it. Each side effect is told to the world (which holds it while the process is
 * frozen, as a paused process would), and so is each first request of the agent call.
 */
export function simWorkflow(lib: SimLibrary, store: RunStore, world: World, proc: number, runId: string): () => Groundswell.Workflow<string> {
  const model = new lib.testing.ScriptedModel((request) => {
    if (lib.testing.toolResults(request).length > 0) return lib.testing.json({ n: 7 });
    world.firstTurns.push({ proc, seq: world.seq() });
    return lib.testing.toolUse('refund', { amount: 3 }, { id: 'toolu_refund' });
  });
  const refund = lib.gs.defineTool({
    name: 'refund',
    description: 'Refunds an amount.',
    input: z.object({ amount: z.number() }),
    needsApproval: true,
    execute: async ({ amount }) => {
      await world.effect(proc, 'refund');
      return `refunded ${amount}`;
    },
  });
  const agent = lib.gs.createAgent({ name: 'asker', client: model.client({ maxRetries: 0 }), tools: [refund] });
  return () =>
    lib.gs.createWorkflow({ name: 'Simulated', clock: world.clock, streamText: true, durable: { store, runId, leaseMs: LEASE_MS } }, async (ctx) => {
      const charged = await ctx.step('charge', async () => {
        world.enter(proc, 'charge');
        await world.effect(proc, 'charge');
        return 10;
      });
      const asked = await ctx.step('ask', async () => {
        world.enter(proc, 'ask');
        const answer = await agent.prompt(lib.gs.createPrompt({ user: 'a number', responseFormat: z.object({ n: z.number() }) }));
        await world.effect(proc, 'ask');
        return answer.n;
      });
      const parts = await Promise.all(
        [0, 1, 2].map((i) =>
          ctx.step(`part-${i}`, async () => {
            world.enter(proc, `part-${i}`);
            await world.effect(proc, `part-${i}`);
            return i * 2;
          }),
        ),
      );
      const approval = await ctx.waitFor('approve', z.object({ ok: z.boolean() }));
      const shipped = await ctx.step('ship', async () => {
        world.enter(proc, 'ship');
        await world.effect(proc, 'ship');
        return 'shipped';
      });
      await ctx.step('email', async () => {
        world.enter(proc, 'email');
        await world.effect(proc, 'email');
      });
      return `${charged}|${asked}|${parts.join(',')}|${approval.ok}|${shipped}`;
    });
}
