import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';

/** Whether `redis-server` can be started here (the outage tests start and kill their own). */
export const HAS_REDIS_SERVER = spawnSync('redis-server', ['--version'], { encoding: 'utf8' }).status === 0;

/** A port nothing listens on (just now): for a server to start on, or a connection to be refused by. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** A real redis-server of the test's own, on `port`, that the test can kill like a crash. */
export class OwnRedisServer {
  private process: ChildProcess | undefined;

  constructor(readonly port: number) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    this.process = spawn('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
    const probe = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => undefined);
    try {
      for (let attempt = 0; attempt < 100; attempt += 1) {
        try {
          if (probe.status !== 'ready') await probe.connect();
          await probe.ping();
          return;
        } catch {
          probe.disconnect();
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
      throw new Error(`redis-server did not answer on port ${this.port}`);
    } finally {
      probe.disconnect();
    }
  }

  /** SIGKILL: the server is gone at once, as in a crash. */
  async kill(): Promise<void> {
    const child = this.process;
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }
}
