import type * as fs from 'node:fs';
import { FS_FAULTS, type FsFault } from './faults.js';
import type { World } from './world.js';

const HOOK = Symbol.for('groundswell.simulator.fs');

/** Thrown by every file operation of a killed process: nothing it does reaches the disk any more. */
export class KilledError extends Error {}

type Op = 'write' | 'fsync' | 'read' | 'other-write';
const OPS: Record<string, Op> = {
  writeSync: 'write',
  writeFileSync: 'write',
  appendFileSync: 'write',
  ftruncateSync: 'other-write',
  renameSync: 'other-write',
  linkSync: 'other-write',
  mkdirSync: 'other-write',
  rmSync: 'other-write',
  unlinkSync: 'other-write',
  rmdirSync: 'other-write',
  fsyncSync: 'fsync',
  fdatasyncSync: 'fsync',
  readFileSync: 'read',
  readdirSync: 'read',
  fstatSync: 'read',
  lstatSync: 'read',
  statSync: 'read',
  existsSync: 'read',
  openSync: 'read',
  readSync: 'read',
};

/** One file operation: its name, the file it touches, its arguments, the real operation as called and with other arguments. */
type Hook = (name: string, path: string, args: unknown[], real: () => unknown, raw: (...args: unknown[]) => unknown) => unknown;

/**
 * node:fs as the simulator's vi.mock gives it: every synchronous operation the journal store uses
 * goes through the hook the running schedule installed (none: the real one).
 */
export function hookedFs(real: typeof fs): typeof fs {
  const fdPaths = new Map<number, string>();
  const wrapped: Record<string, unknown> = { ...real };
  for (const name of Object.keys(OPS)) {
    const original = (real as unknown as Record<string, (...a: unknown[]) => unknown>)[name];
    if (typeof original !== 'function') continue;
    wrapped[name] = (...args: unknown[]) => {
      const hook = (globalThis as Record<symbol, Hook | undefined>)[HOOK];
      const run = (): unknown => {
        const out = original.apply(real, args);
        if (name === 'openSync' && typeof out === 'number') fdPaths.set(out, String(args[0]));
        return out;
      };
      if (hook === undefined) return run();
      const target = typeof args[0] === 'number' ? (fdPaths.get(args[0]) ?? '') : String(args[0]);
      return hook(name, target, args, run, (...other: unknown[]) => original.apply(real, other));
    };
  }
  return { ...wrapped, default: wrapped } as unknown as typeof fs;
}

/**
 * Injects the schedule's file faults into operations under `dir` made by a process's store code:
 * each planned fault strikes the first operation of its kind at or after its position.
 */
export function installFsFaults(world: World, dir: string): () => void {
  const pending = world.plan.filter((fault) => (FS_FAULTS as readonly string[]).includes(fault.kind)).map((fault) => ({ ...fault }));
  const shortWrites = new Set<string>();
  const hook: Hook = (name, path, args, real, raw) => {
    const proc = world.current;
    if (proc === undefined || !path.startsWith(dir)) return real();
    if (world.isDead(proc)) throw new KilledError(`process ${proc} was killed`);
    const op = OPS[name] as Op;
    const at = world.counts.fs;
    world.counts.fs += 1;
    if (op === 'write' && shortWrites.delete(path)) throw errno('ENOSPC', name, path);
    const index = pending.findIndex((fault) => fault.at <= at && fits(fault.kind as FsFault, op, name));
    if (index === -1) return real();
    const kind = (pending.splice(index, 1)[0] as { kind: FsFault }).kind;
    world.count(kind);
    switch (kind) {
      case 'short-write': {
        // Half the bytes, no error; the next write to the file finds the disk full.
        const buffer = args[1];
        if (Buffer.isBuffer(buffer)) {
          const offset = typeof args[2] === 'number' ? args[2] : 0;
          const length = typeof args[3] === 'number' ? args[3] : buffer.length - offset;
          shortWrites.add(path);
          return raw(args[0], buffer, offset, Math.max(1, Math.floor(length / 2)));
        }
        throw errno('ENOSPC', name, path);
      }
      case 'enospc':
        throw errno('ENOSPC', name, path);
      case 'eio-write':
      case 'eio-read':
      case 'fsync-fail':
        throw errno('EIO', name, path);
      case 'kill-at-fs': {
        real();
        world.kill(proc);
        throw new KilledError(`process ${proc} was killed after ${name} ${path}`);
      }
    }
  };
  (globalThis as Record<symbol, Hook | undefined>)[HOOK] = hook;
  return () => {
    (globalThis as Record<symbol, Hook | undefined>)[HOOK] = undefined;
  };
}

function fits(kind: FsFault, op: Op, name: string): boolean {
  switch (kind) {
    case 'short-write':
      return name === 'writeSync';
    case 'enospc':
    case 'eio-write':
      return op === 'write';
    case 'eio-read':
      return name === 'readFileSync' || name === 'readSync';
    case 'fsync-fail':
      return op === 'fsync';
    case 'kill-at-fs':
      return op === 'write' || op === 'other-write' || op === 'fsync';
  }
}

function errno(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: simulated fault, ${syscall} '${path}'`), { code, syscall, path, errno: code === 'EIO' ? -5 : -28 });
}
