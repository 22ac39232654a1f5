import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP relay in front of a Redis server that the test can freeze: while frozen it accepts
 * connections and reads commands but forwards none, so Redis looks alive and silent. It counts
 * the commands that arrive while frozen; `thaw()` forwards them (in order, so the client's
 * replies stay matched) and relays again. With no upstream it is a server that never answers.
 */
export class FreezableProxy {
  /** Names of the commands (`GET`, `EVALSHA`, ...) that arrived while frozen. */
  readonly frozenCommands: string[] = [];
  private frozen = false;
  private readonly held = new Map<Socket, Buffer[]>();
  private readonly pipes = new Set<{ client: Socket; upstream: Socket | undefined }>();

  private constructor(
    private readonly server: Server,
    private readonly upstream: { host: string; port: number } | undefined,
  ) {}

  static async start(upstream?: { host: string; port: number }): Promise<FreezableProxy> {
    const server = createServer();
    const proxy = new FreezableProxy(server, upstream);
    server.on('connection', (client) => proxy.accept(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    if (upstream === undefined) proxy.frozen = true;
    return proxy;
  }

  get url(): string {
    const address = this.server.address();
    if (address === null || typeof address === 'string') throw new Error('proxy is not listening');
    return `redis://127.0.0.1:${address.port}`;
  }

  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
    for (const pipe of this.pipes) {
      for (const chunk of this.held.get(pipe.client) ?? []) pipe.upstream?.write(chunk);
      this.held.set(pipe.client, []);
    }
  }

  async close(): Promise<void> {
    for (const pipe of this.pipes) {
      pipe.client.destroy();
      pipe.upstream?.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private accept(client: Socket): void {
    const upstream = this.upstream === undefined ? undefined : createConnection(this.upstream);
    const pipe = { client, upstream };
    this.pipes.add(pipe);
    this.held.set(client, []);
    upstream?.on('data', (chunk) => client.write(chunk));
    upstream?.on('error', () => client.destroy());
    client.on('error', () => upstream?.destroy());
    client.on('close', () => {
      upstream?.destroy();
      this.pipes.delete(pipe);
    });
    client.on('data', (chunk: Buffer) => {
      if (!this.frozen) {
        upstream?.write(chunk);
        return;
      }
      this.held.get(client)?.push(chunk);
      this.frozenCommands.push(...commandNames(chunk));
    });
  }
}

/**
 * The command names in a chunk of RESP (`*<n>\r\n$<len>\r\n<name>\r\n...`). Enough for the
 * tests' commands, which each arrive whole in one chunk.
 */
function commandNames(chunk: Buffer): string[] {
  const names: string[] = [];
  let at = 0;
  while (at < chunk.length && chunk[at] === 0x2a) {
    const line = (from: number): [string, number] => {
      const end = chunk.indexOf('\r\n', from);
      return [chunk.subarray(from, end).toString('latin1'), end + 2];
    };
    const [count, afterCount] = line(at + 1);
    at = afterCount;
    for (let i = 0; i < Number(count); i += 1) {
      const [length, afterLength] = line(at + 1);
      const value = chunk.subarray(afterLength, afterLength + Number(length)).toString('latin1');
      if (i === 0) names.push(value.toUpperCase());
      at = afterLength + Number(length) + 2;
    }
  }
  return names;
}
