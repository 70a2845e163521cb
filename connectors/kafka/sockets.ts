import { connect as netConnect, isIP, Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { ISocketFactory } from 'kafkajs';

const STOPPED = 'the source was stopped';

/** kafkajs's own keep-alive delay (network/socketFactory.js). */
const KEEP_ALIVE_MS = 60_000;

/**
 * The sockets of one source's Kafka clients, held so that a stopped source
 * holds no connection. kafkajs keeps retrying a connect for minutes after
 * `disconnect()` (its retrier is not cancelled), so a paused or deleted source
 * whose broker was away went on dialling it; once closed, this factory opens
 * nothing more and destroys what it opened. It also tells the runner of every
 * socket that failed to connect, so its status says so at the first attempt
 * rather than when kafkajs gives up.
 */
export class SourceSockets {
  private readonly open = new Set<Socket>();
  private closed = false;

  constructor(private readonly onError: (address: string, error: Error) => void = () => undefined) {}

  /** The factory kafkajs builds its connections with (KafkaConfig.socketFactory). */
  readonly factory: ISocketFactory = ({ host, port, ssl, onConnect }) => {
    if (this.closed) {
      // kafkajs expects a socket: one that fails at once, without touching the network.
      const dead = new Socket();
      queueMicrotask(() => dead.destroy(new Error(STOPPED)));
      return dead;
    }
    const socket = ssl
      ? tlsConnect({ host, port, ...(isIP(host) ? {} : { servername: host }), ...(ssl as object) }, onConnect)
      : netConnect({ host, port }, onConnect);
    socket.setKeepAlive(true, KEEP_ALIVE_MS);
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
    socket.once('error', (error) => this.onError(`${host}:${port}`, error));
    return socket;
  };

  /** Connections open now. */
  get count(): number {
    return this.open.size;
  }

  /**
   * Opens nothing more and ends every connection it opened. Each is destroyed with an error so kafkajs fails its
   * requests on it at once: a request waiting on a host that never answers would otherwise hold the runner's stop for
   * the whole request timeout (30 s).
   */
  close(): void {
    this.closed = true;
    for (const socket of this.open) socket.destroy(new Error(STOPPED));
    this.open.clear();
  }
}
