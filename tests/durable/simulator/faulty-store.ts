import type { Lease, RunStore, SettledStep } from 'groundswell/durable';
import type { World } from './world.js';

type Method = (...args: unknown[]) => Promise<unknown>;

/**
 * The store as process `proc` sees it: each call (and each call of a lease it took) first meets
 * the fault planned for it: the process may be killed before the call runs or after it ran (it then
 * never answers again), paused past its lease, or see the clock jump. What the store acknowledges
 * is written down for the invariants.
 */
export function faultyStore(real: RunStore, proc: number, world: World): RunStore {
  return new Proxy(real, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function' || name === 'close' || name === 'migrate') return value;
      return (...args: unknown[]) => faultyCall(world, proc, String(name), () => (value as Method).apply(target, args), args);
    },
  });
}

async function faultyCall(world: World, proc: number, name: string, call: () => Promise<unknown>, args: unknown[]): Promise<unknown> {
  await world.frozen(proc);
  const fault = world.nextCallFault();
  // Less than a lease: the holder must notice and renew before its next step, not give up.
  if (fault === 'clock-jump') world.clock.advance(700);
  if (fault === 'pause') {
    world.pause(proc);
    await world.frozen(proc);
  }
  if (fault === 'kill-before') {
    world.kill(proc);
    return world.never();
  }
  let pending: Promise<unknown>;
  world.current = proc;
  try {
    pending = call();
  } finally {
    world.current = undefined;
  }
  let result: unknown;
  try {
    result = await pending;
  } catch (error) {
    if (world.isDead(proc)) return world.never();
    await world.frozen(proc);
    throw error;
  }
  if (world.isDead(proc)) return world.never();
  if (fault === 'kill-after') {
    world.kill(proc);
    return world.never();
  }
  await world.frozen(proc);
  noteAck(world, proc, name, args, result);
  return name === 'acquireLease' ? faultyLease(result as Lease, proc, world) : result;
}

function faultyLease(lease: Lease, proc: number, world: World): Lease {
  return new Proxy(lease, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => faultyCall(world, proc, `lease.${String(name)}`, () => (value as Method).apply(target, args), args);
    },
  });
}

/** What the code now believes is kept: settled steps, completed calls, a final status. */
function noteAck(world: World, proc: number, name: string, args: unknown[], result: unknown): void {
  if (name === 'settleStep' || name === 'putStep') {
    const step = args[1] as { key: string; value?: unknown; status: string };
    const written = name === 'settleStep' ? (result as SettledStep).written : (result as boolean);
    if (written) world.ackStep(step.key, proc, { status: step.status, value: step.value });
  } else if (name === 'putCall') {
    const call = args[1] as { key: string; answer: unknown };
    if (result === true) world.ackCall(call.key, proc, call.answer);
  } else if (name === 'updateRun') {
    const patch = args[1] as { status?: string; result?: unknown };
    if (patch.status === 'completed' || patch.status === 'failed') world.finals.push({ status: patch.status, result: patch.result, proc });
  }
}
