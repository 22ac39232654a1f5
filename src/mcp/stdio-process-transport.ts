import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { killOnExit, killProcess } from './live-process-groups.js';

/** How long `close()` lets a server exit on its own after its stdin ends, then after SIGTERM. */
const GRACE_MS = 2000;

export interface StdioProcessParams {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/**
 * The MCP client side of a stdio server, like the SDK's `StdioClientTransport` but with the child
 * leading a process group of its own (POSIX), so that the server and anything it started can be
 * killed together: at once when a start is cancelled (`kill()`), after a grace period on
 * `close()`, and when this process exits first. The SDK's transport cannot spawn detached.
 */
export class StdioProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** The child's stderr; there before `start()`, so no early line is missed. */
  readonly stderr = new PassThrough();
  private child: ChildProcessWithoutNullStreams | undefined;
  private exited: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private readonly buffer = new ReadBuffer();

  constructor(
    private readonly params: StdioProcessParams,
    private readonly ownGroup: boolean,
  ) {}

  start(): Promise<void> {
    if (this.child !== undefined) return Promise.reject(new Error('StdioProcessTransport already started'));
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, [...this.params.args], {
        env: { ...this.params.env },
        ...(this.params.cwd === undefined ? {} : { cwd: this.params.cwd }),
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: this.ownGroup,
        shell: false,
        windowsHide: true,
      });
      this.child = child;
      let forget: (() => void) | undefined;
      this.exited = new Promise((settle) => {
        child.once('exit', () => {
          // The server is gone; what it started and left in its group goes with it. (The group's id
          // is not reused while a member lives, so this cannot reach a stranger.)
          if (this.ownGroup && child.pid !== undefined) killProcess(child.pid, true, 'SIGKILL');
          forget?.();
          settle();
        });
        // A command that cannot be spawned never exits.
        child.once('error', () => settle());
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) forget = killOnExit(child.pid, this.ownGroup);
        resolve();
      });
      // `on`, not `once`: a later 'error' without a listener would throw in the host.
      child.on('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('close', () => this.onclose?.());
      child.stdin.on('error', (error) => this.onerror?.(error));
      child.stdout.on('error', (error) => this.onerror?.(error));
      child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
      child.stderr.pipe(this.stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (stdin === undefined || this.closing !== undefined) return Promise.reject(new Error('Not connected'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  /** Kills the server and its group now: for a start that was cancelled, which has nothing to save. */
  kill(): void {
    const child = this.child;
    if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      killProcess(child.pid, this.ownGroup, 'SIGKILL');
    }
  }

  /** Ends the server's stdin (the MCP way to stop a server), then SIGTERM, then SIGKILL to its group. */
  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    const child = this.child;
    const exited = this.exited;
    if (child === undefined || exited === undefined) return;
    const running = (): boolean => child.exitCode === null && child.signalCode === null;
    try {
      child.stdin.end();
    } catch {
      // A stdin that is already broken: the signals below still apply.
    }
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      if (!running() || (await exitedWithin(exited, GRACE_MS))) break;
      if (child.pid !== undefined) killProcess(child.pid, this.ownGroup, signal);
    }
    if (running()) await exited;
    this.buffer.clear();
  }

  private receive(chunk: Buffer): void {
    try {
      this.buffer.append(chunk);
    } catch (error) {
      // More unread output than the buffer allows: the session cannot continue.
      this.onerror?.(error as Error);
      void this.close();
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        // One line that is not JSON-RPC (a stray log line) is reported and skipped; the next may be fine.
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }
}

/** Whether `exited` settles within `ms`; the timer does not keep the process alive (the exit hook covers that). */
async function exitedWithin(exited: Promise<void>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
    timer.unref();
  });
  try {
    return await Promise.race([exited.then(() => true as const), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
