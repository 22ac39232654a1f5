import type pg from 'pg';
import { PG_FAULTS, type PgFault } from './faults.js';
import type { World } from './world.js';

type Query = (...args: unknown[]) => Promise<unknown>;

/**
 * A `pg` pool as process `proc` reaches PostgreSQL through it: the schedule's connection faults
 * strike the first statement at or after their position. `drop-before`: the connection was gone
 * before the statement went out (ECONNREFUSED). `drop-after`: the statement ran (and, outside a
 * transaction, committed) and then the connection dropped, so the client never learns the outcome.
 * A killed process's statements get no answer.
 */
export function faultyPool(real: pg.Pool, proc: number, world: World, pending: Array<{ kind: PgFault; at: number }>): pg.Pool & { destroy(): Promise<void> } {
  // A killed process's connections close with it: the server rolls back what they left open.
  const out = new Set<pg.PoolClient>();
  const statement = async (run: () => Promise<unknown>): Promise<unknown> => {
    if (world.isDead(proc)) return world.never();
    const at = world.counts.pg;
    world.counts.pg += 1;
    const index = pending.findIndex((fault) => fault.at <= at);
    const kind = index === -1 ? undefined : (pending.splice(index, 1)[0] as { kind: PgFault }).kind;
    if (kind !== undefined) world.count(kind);
    if (kind === 'drop-before') throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432 (simulated)'), { code: 'ECONNREFUSED' });
    const result = await run();
    if (world.isDead(proc)) return world.never();
    if (kind === 'drop-after') throw new Error('Connection terminated unexpectedly (simulated)');
    return result;
  };
  const query: Query = (...args) => statement(() => (real.query as unknown as Query)(...args));
  return {
    query,
    async connect() {
      const client = await real.connect();
      out.add(client);
      return new Proxy(client, {
        get(target, name, receiver) {
          if (name === 'release') {
            return (error?: Error | boolean) => {
              out.delete(target);
              target.release(error);
            };
          }
          if (name === 'query') return (...args: unknown[]) => statement(() => (target.query as unknown as Query).apply(target, args));
          const value = Reflect.get(target, name, receiver) as unknown;
          return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
        },
      });
    },
    end: () => real.end(),
    async destroy() {
      for (const client of out) client.release(true);
      out.clear();
      await real.end();
    },
    // The store listens for idle connections that die: the real pool's events.
    on: (event: string, listener: (...a: unknown[]) => void) => real.on(event as 'error', listener),
  } as unknown as pg.Pool & { destroy(): Promise<void> };
}

/** The schedule's connection faults, to be used up by the processes' pools in turn. */
export function plannedDrops(world: World): Array<{ kind: PgFault; at: number }> {
  return world.plan.filter((fault) => (PG_FAULTS as readonly string[]).includes(fault.kind)).map((fault) => ({ kind: fault.kind as PgFault, at: fault.at }));
}
