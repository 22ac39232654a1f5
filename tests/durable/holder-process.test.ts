import { spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { holderIsGone, localProcesses, type HolderProcess, type ProcessProbe } from '../../src/durable/store/holder-process.js';

const HERE: HolderProcess = { host: 'here', pid: 100, bootId: 'boot-1', pidNamespace: 'pid:[1]', startedAt: '500' };

/** This machine as `HERE`, with the processes in `running` (pid to start time; undefined: cannot tell). */
function probe(running: Record<number, string | undefined>): ProcessProbe {
  return { self: () => HERE, running: (pid) => Object.hasOwn(running, pid), startedAt: (pid) => running[pid] };
}

describe('holderIsGone', () => {
  it('is true only for a process of this very machine whose pid is free or reused', () => {
    const machine = probe({ 7: '900', 8: undefined });
    expect(holderIsGone({ ...HERE, pid: 6 }, machine)).toBe(true);
    // Another host, boot or pid namespace: never judged, whatever its pid.
    expect(holderIsGone({ ...HERE, pid: 6, host: 'there' }, machine)).toBe(false);
    expect(holderIsGone({ ...HERE, pid: 6, bootId: 'boot-2' }, machine)).toBe(false);
    expect(holderIsGone({ ...HERE, pid: 6, pidNamespace: 'pid:[2]' }, machine)).toBe(false);
    // A lease of an earlier version records host and pid only: judged by those.
    expect(holderIsGone({ host: 'here', pid: 6 }, machine)).toBe(true);
    // A recorded boot id where this machine has none is another machine.
    expect(holderIsGone({ ...HERE, pid: 6 }, { ...machine, self: () => ({ host: 'here', pid: 100 }) })).toBe(false);
    // Alive with its start time, or one that cannot be read: alive. Another start time: the pid was reused.
    expect(holderIsGone({ ...HERE, pid: 7, startedAt: '900' }, machine)).toBe(false);
    expect(holderIsGone({ ...HERE, pid: 8, startedAt: '900' }, machine)).toBe(false);
    expect(holderIsGone({ ...HERE, pid: 7, startedAt: '300' }, machine)).toBe(true);
    expect(holderIsGone({ host: 'here', pid: 7, bootId: 'boot-1' }, machine)).toBe(false);
    // This process: alive, unless the record is of an earlier process that had its pid.
    expect(holderIsGone(HERE, machine)).toBe(false);
    expect(holderIsGone({ ...HERE, startedAt: '1' }, machine)).toBe(true);
  });
});

describe('localProcesses', () => {
  it('sees this process alive and an exited one gone', () => {
    expect(localProcesses.running(process.pid)).toBe(true);
    const exited = Number(spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout);
    expect(localProcesses.running(exited)).toBe(false);
    expect(localProcesses.self().pid).toBe(process.pid);
  });

  it.runIf(process.platform === 'linux')('records boot id, pid namespace and start time on Linux, and sees a zombie as gone', async () => {
    const self = localProcesses.self();
    expect(self.bootId).toBe(readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim());
    expect(self.pidNamespace).toMatch(/^pid:\[\d+\]$/);
    expect(self.startedAt).toMatch(/^\d+$/);
    // `sleep 30` replaces the shell as the parent of a background `sleep 0.2` and never reaps it: a zombie.
    const parent = spawn('sh', ['-c', 'sleep 0.2 & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
    try {
      const zombie = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString('utf8')))));
      while (!/\) Z /.test(readFileSync(`/proc/${zombie}/stat`, 'utf8'))) await new Promise((wake) => setTimeout(wake, 10));
      // kill(pid, 0) still succeeds for it; it can no longer write.
      expect(() => process.kill(zombie, 0)).not.toThrow();
      expect(localProcesses.running(zombie)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
