import { createConnection, createServer, type Server, type Socket } from 'node:net';
import type pg from 'pg';
import { PG_CONNECTION } from './postgres-service.js';

/** One client connection through the proxy and its connection to the server. */
interface Pair {
  readonly client: Socket;
  readonly server: Socket;
  /**
   * `open`: bytes flow both ways; `closing`: the client was sent an end of stream and what it
   * still sends is dropped; `severed`: the server side is gone and the client was not told.
   */
  state: 'open' | 'closing' | 'severed';
}

/**
 * A TCP proxy on 127.0.0.1 in front of the test PostgreSQL server (tests/support/postgres-service.ts:
 * GROUNDSWELL_PG_URL's host and port, else the local socket /var/run/postgresql/.s.PGSQL.5432), for
 * tests of what a client does when its connections drop or the server cannot be reached. It
 * forwards bytes and understands nothing of the protocol.
 *
 * ```ts
 * const proxy = await PgProxy.start();
 * const store = new PostgresRunStore({ connection: proxy.config({ application_name: 'mine' }) });
 * proxy.dropAll();                 // every open connection closes, as in a server restart
 * await proxy.refuse();            // new connections are refused (ECONNREFUSED): the server is down
 * await proxy.accept();            // back up, on the same port
 * await proxy.whenOpen((n) => n === 0); // waits until every client has closed its side
 * await proxy.close();
 * ```
 *
 * An outage of a given length is `dropAll()` and `refuse()`, then `accept()` when the test has
 * made the progress it waits for (or after a timer, for a test about a duration).
 */
export class PgProxy {
  readonly host = '127.0.0.1';
  private server: Server | undefined;
  private readonly pairs = new Set<Pair>();
  private readonly waiters = new Set<() => void>();
  private acceptedCount = 0;

  private constructor(
    private readonly target: { path: string } | { host: string; port: number },
    private readonly base: pg.ClientConfig,
    public port: number,
  ) {}

  /** A proxy listening on an ephemeral port of 127.0.0.1, forwarding to the test server. */
  static async start(): Promise<PgProxy> {
    const { target, base } = testServer();
    const proxy = new PgProxy(target, base, 0);
    await proxy.accept();
    return proxy;
  }

  /** A `pg` client or pool config reaching the test database through the proxy; `extra` is merged in (e.g. `application_name`, `max`). */
  config<T extends object>(extra?: T): pg.ClientConfig & T {
    return { ...this.base, ...(extra ?? ({} as T)), host: this.host, port: this.port };
  }

  /**
   * Connections open through the proxy now. A connection counts until the client has closed its
   * side too, which a `pg` client does once it has seen the end of its connection: so
   * `whenOpen((n) => n === 0)` after the server or `dropAll()` ended them waits until every client
   * (and a pool holding them) knows.
   */
  get open(): number {
    return this.pairs.size;
  }

  /** Connections accepted since the proxy started. */
  get accepted(): number {
    return this.acceptedCount;
  }

  /** Closes every open connection on both sides at once, as a server restart or a failover does. */
  dropAll(): void {
    for (const pair of this.pairs) this.end(pair);
  }

  /**
   * Closes the server side of every open connection and tells the client nothing, as a network
   * that drops a connection silently does (a NAT's timeout, a failover behind a load balancer).
   * The client sees it when it next sends: its side is then closed without an answer. The server
   * sees its side closed and ends the session (a statement already running there goes on).
   */
  severAll(): void {
    for (const pair of this.pairs) {
      if (pair.state !== 'open') continue;
      pair.state = 'severed';
      pair.server.destroy();
    }
  }

  /** Stops listening: new connections are refused (ECONNREFUSED) until `accept()`. Open ones stay. */
  async refuse(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    // close() stops listening at once but reports only once every connection has ended: not awaited.
    server?.close();
    await new Promise<void>((turn) => setImmediate(turn));
  }

  /** Listens again (on the same port once started), after `refuse()`. */
  async accept(): Promise<void> {
    if (this.server !== undefined) return;
    const server = createServer((client) => this.forward(client));
    await new Promise<void>((listening, failed) => {
      server.once('error', failed);
      server.listen(this.port, this.host, () => {
        server.off('error', failed);
        listening();
      });
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('The PostgreSQL test proxy did not get a TCP port.');
    this.port = address.port;
    this.server = server;
  }

  /** Resolves once `ready(open)` holds, checked now and whenever a connection opens or closes. */
  whenOpen(ready: (open: number) => boolean): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (!ready(this.pairs.size)) return;
        this.waiters.delete(check);
        resolve();
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Stops listening and closes every connection. */
  async close(): Promise<void> {
    await this.refuse();
    for (const pair of this.pairs) {
      pair.server.destroy();
      pair.client.destroy();
    }
  }

  private forward(client: Socket): void {
    this.acceptedCount += 1;
    const server = 'path' in this.target ? createConnection(this.target.path) : createConnection(this.target.port, this.target.host);
    const pair: Pair = { client, server, state: 'open' };
    this.pairs.add(pair);
    client.setNoDelay(true);
    client.on('data', (chunk) => {
      if (pair.state === 'open') server.write(chunk);
      else if (pair.state === 'severed') client.destroy();
    });
    server.on('data', (chunk) => {
      if (pair.state === 'open') client.write(chunk);
    });
    // The server ended the session (pg_terminate_backend, a shutdown): the client is told.
    server.on('close', () => {
      if (pair.state === 'open') this.end(pair);
    });
    client.on('close', () => {
      server.destroy();
      this.pairs.delete(pair);
      this.notify();
    });
    // A reset or a refused upstream ends the pair through 'close'; the error itself is expected.
    client.on('error', () => undefined);
    server.on('error', () => undefined);
    this.notify();
  }

  /** Ends both sides: the server's at once, the client's with an end of stream after what it was sent. */
  private end(pair: Pair): void {
    pair.state = 'closing';
    pair.server.destroy();
    pair.client.end();
  }

  private notify(): void {
    for (const check of [...this.waiters]) check();
  }
}

/** Where the test server is, and the rest of its config (database, user, password) for the proxy's clients. */
function testServer(): { target: { path: string } | { host: string; port: number }; base: pg.ClientConfig } {
  if (typeof PG_CONNECTION !== 'string') {
    const { host, ...base } = PG_CONNECTION;
    return { target: socketOrHost(host, 5432), base };
  }
  const url = new URL(PG_CONNECTION);
  const port = url.port === '' ? 5432 : Number(url.port);
  const host = url.searchParams.get('host') ?? decodeURIComponent(url.hostname);
  const base: pg.ClientConfig = {
    database: decodeURIComponent(url.pathname.slice(1)) || undefined,
    user: decodeURIComponent(url.username) || undefined,
    password: decodeURIComponent(url.password) || undefined,
  };
  return { target: socketOrHost(host === '' ? '/var/run/postgresql' : host, port), base };
}

function socketOrHost(host: string, port: number): { path: string } | { host: string; port: number } {
  return host.startsWith('/') ? { path: `${host}/.s.PGSQL.${port}` } : { host, port };
}
