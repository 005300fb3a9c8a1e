// A running zds-relay (relay/main.go): SOCK_SEQPACKET connections, each a sequence of datagrams,
// with a network namespace passed as an SCM_RIGHTS fd on a send. Node cannot do either itself.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { ErrorCode, HarnessError } from '../../lib/index.ts';
import { createLineDecoder, encodeLine } from '../json-lines.ts';
import { Inbox } from './inbox.ts';

/** An fd that came with a datagram, as the relay saw it before closing it (fstat, fstatfs). */
export interface ZdsReceivedFd {
  /** keepFds: the fd's number in the relay, open until released (/proc/<relay pid>/fd/<fd>). */
  fd?: number;
  ino: number;
  dev: number;
  /** On nsfs: a namespace (what ztunnel's validate_ns checks). */
  nsfs: boolean;
}

export interface ZdsDatagram {
  data: Buffer;
  fds: ZdsReceivedFd[];
  /** MSG_TRUNC or MSG_CTRUNC: both upstreams refuse such a message. */
  truncated: boolean;
}

export interface ZdsRelayConnection {
  readonly id: number;
  /** The next datagram in order; rejects once the connection closed and none is left, or at the timeout. */
  receive(timeoutMs: number): Promise<ZdsDatagram>;
  /** One datagram; with `netnsPath` that namespace's fd rides along. Resolves once written. */
  send(data: Uint8Array, options?: { netnsPath?: string }): Promise<void>;
  /** Closes this connection (the peer reads EOF). */
  close(): void;
  readonly isClosed: boolean;
  /** Resolves when the connection has ended (either side closed it, or the relay exited). */
  readonly closed: Promise<void>;
}

export interface ZdsRelay {
  /** The next connection: accepted (serve), or the one made (connect). */
  accept(timeoutMs: number): Promise<ZdsRelayConnection>;
  /** Ends stdin: every connection closes, the relay exits (SIGKILL after 2 s). Idempotent. */
  close(): Promise<void>;
  /** SIGKILL. Idempotent. */
  destroy(): Promise<void>;
  /** The relay's process id: a kept fd is /proc/<pid>/fd/<fd>. */
  readonly pid: number;
  /** keepFds: closes a kept fd (its pod is gone). */
  release(fd: number): void;
}

export interface StartZdsRelayOptions {
  binary: string;
  /** serve: listen as istio-cni's node agent does; connect: dial as ztunnel does. */
  mode: 'serve' | 'connect';
  socketPath: string;
  readyTimeoutMs?: number;
  /**
   * connect only: keep each received fd open and report its number, so that a path names it for as
   * long as it is needed (our ztunnel's pods' network namespaces); `release` closes one.
   */
  keepFds?: boolean;
}

const CLOSE_GRACE_MS = 2_000;

interface RelayEvent {
  ev?: string;
  conn?: number;
  id?: number;
  data?: string;
  fds?: ZdsReceivedFd[];
  truncated?: boolean;
  error?: string;
}

function relayError(message: string): HarnessError {
  return new HarnessError(ErrorCode.ComponentFailed, `zds-relay: ${message}`);
}

/** Starts the relay; resolves once it listens (serve) or has connected (connect). */
export async function startZdsRelay(options: StartZdsRelayOptions): Promise<ZdsRelay> {
  const keep = options.mode === 'connect' && options.keepFds === true ? ['keep-fds'] : [];
  const child = spawn(options.binary, [options.mode, options.socketPath, ...keep], {
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const relay = new Relay(child);
  const ready = options.mode === 'serve' ? relay.listening : Promise.resolve();
  try {
    // Settled once: whichever comes first; the later ones are no-ops (no dangling rejection).
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(
          relayError(`not ${options.mode === 'serve' ? 'listening' : 'connected'} on ${options.socketPath}`),
        );
      }, options.readyTimeoutMs ?? 5_000);
      void ready.then(() => {
        clearTimeout(timer);
        resolve();
      });
      void relay.exited.then(() => {
        clearTimeout(timer);
        reject(relay.failure());
      });
    });
  } catch (err) {
    await relay.destroy();
    throw err;
  }
  return relay;
}

class Relay implements ZdsRelay {
  readonly #child: ChildProcess;
  readonly #accepted = new Inbox<ZdsRelayConnection>();
  readonly #connections = new Map<number, Connection>();
  readonly #sends = new Map<number, { resolve(): void; reject(err: Error): void }>();
  #nextSend = 0;
  #stderr = '';
  #fatal: string | undefined;
  readonly exited: Promise<void>;
  readonly listening: Promise<void>;
  #onListening: () => void = () => undefined;

  constructor(child: ChildProcess) {
    this.#child = child;
    this.listening = new Promise((resolve) => (this.#onListening = resolve));
    this.exited = once(child, 'exit').then(() => {
      this.#ended();
    });
    child.stderr?.on('data', (d: Buffer) => (this.#stderr = (this.#stderr + d.toString()).slice(-2000)));
    child.stdout?.on(
      'data',
      createLineDecoder(
        (event) => {
          this.#onEvent(event);
        },
        (reason) => (this.#fatal = `unreadable output: ${reason}`),
      ),
    );
    // Writing after the relay died fails here and in the send's rejection: nothing more to do.
    child.stdin?.on('error', () => undefined);
  }

  get pid(): number {
    return this.#child.pid ?? 0;
  }

  release(fd: number): void {
    this.command({ op: 'release', fd });
  }

  failure(): HarnessError {
    const code = this.#child.exitCode ?? this.#child.signalCode;
    const why = this.#fatal ?? (this.#stderr.trim() || 'no message');
    return relayError(`exited (${String(code)}): ${why}`);
  }

  #onEvent(e: RelayEvent): void {
    const conn = e.conn === undefined ? undefined : this.#connections.get(e.conn);
    switch (e.ev) {
      case 'listening':
        this.#onListening();
        return;
      case 'open': {
        const opened = new Connection(e.conn ?? 0, this);
        this.#connections.set(opened.id, opened);
        this.#accepted.push(opened);
        return;
      }
      case 'message':
        conn?.inbox.push({
          data: Buffer.from(e.data ?? '', 'base64'),
          fds: e.fds ?? [],
          truncated: e.truncated === true,
        });
        return;
      case 'closed':
        conn?.end(relayError(`connection ${String(e.conn)} closed${e.error ? `: ${e.error}` : ''}`));
        this.#connections.delete(e.conn ?? 0);
        return;
      case 'sent':
      case 'failed': {
        const pending = this.#sends.get(e.id ?? 0);
        this.#sends.delete(e.id ?? 0);
        if (e.ev === 'sent') pending?.resolve();
        else pending?.reject(relayError(`send failed: ${e.error ?? 'no reason'}`));
        return;
      }
      default:
        this.#fatal = e.error ?? `unknown event ${JSON.stringify(e)}`;
    }
  }

  #ended(): void {
    const err = this.failure();
    this.#accepted.end(err);
    for (const conn of this.#connections.values()) conn.end(err);
    for (const pending of this.#sends.values()) pending.reject(err);
    this.#sends.clear();
  }

  command(command: Record<string, unknown>): void {
    this.#child.stdin?.write(encodeLine(command));
  }

  send(conn: number, data: Uint8Array, netnsPath?: string): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null)
      return Promise.reject(this.failure());
    const id = ++this.#nextSend;
    return new Promise((resolve, reject) => {
      this.#sends.set(id, { resolve, reject });
      this.command({
        op: 'send',
        id,
        conn,
        data: Buffer.from(data).toString('base64'),
        ...(netnsPath ? { netns: netnsPath } : {}),
      });
    });
  }

  accept(timeoutMs: number): Promise<ZdsRelayConnection> {
    return this.#accepted.take(timeoutMs, 'ZDS connection');
  }

  async close(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      this.#child.stdin?.end();
      const timer = setTimeout(() => this.#child.kill('SIGKILL'), CLOSE_GRACE_MS);
      await this.exited;
      clearTimeout(timer);
    }
  }

  async destroy(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGKILL');
    await this.exited;
  }
}

class Connection implements ZdsRelayConnection {
  readonly id: number;
  readonly inbox = new Inbox<ZdsDatagram>();
  readonly #relay: Relay;
  readonly closed: Promise<void>;
  #onClosed: () => void = () => undefined;

  constructor(id: number, relay: Relay) {
    this.id = id;
    this.#relay = relay;
    this.closed = new Promise((resolve) => (this.#onClosed = resolve));
  }

  end(err: Error): void {
    this.inbox.end(err);
    this.#onClosed();
  }

  get isClosed(): boolean {
    return this.inbox.ended;
  }

  receive(timeoutMs: number): Promise<ZdsDatagram> {
    return this.inbox.take(timeoutMs, `datagram on ZDS connection ${String(this.id)}`);
  }

  send(data: Uint8Array, options: { netnsPath?: string } = {}): Promise<void> {
    return this.#relay.send(this.id, data, options.netnsPath);
  }

  close(): void {
    this.#relay.command({ op: 'close', conn: this.id });
  }
}
