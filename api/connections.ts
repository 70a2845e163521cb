import type { Server, ServerOptions } from 'node:http';
import { Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { limitName, type Config } from './config.js';
import { answerSocket } from './errors.js';

/**
 * What a client may hold of the server: a socket is a file descriptor, and
 * without bounds 400 slow clients (no key needed for slow headers) used up the
 * process's descriptors, so another tenant's requests were reset and even
 * `/health/live` went unanswered. Each bound closes the socket of the client
 * that meets it (after an answer in the error format where one can be given):
 *
 * - headers must arrive within PCG_HEADERS_TIMEOUT_MS of the request's start
 *   (Node's `headersTimeout`: 408);
 * - a body, dataset uploads excepted, within PCG_BODY_TIMEOUT_MS of its
 *   headers (a timer of the request: 408), and any request, uploads included,
 *   within PCG_REQUEST_TIMEOUT_MS (Node's `requestTimeout`, which cannot be
 *   set per route: an upload of 2 GiB needs longer than a JSON body);
 * - a socket idle for PCG_IDLE_TIMEOUT_MS while the server waits for its
 *   client (before a request, or between two) is closed. A socket the server is
 *   answering is not idle, however long its answer takes: a graph build within
 *   PCG_BUILD_BUDGET_MS, and the graph streams (`…/graph/stream`), which stay
 *   open for as long as their client listens;
 * - at most PCG_CONNECTIONS_PER_ADDRESS sockets per client address and
 *   PCG_MAX_CONNECTIONS in all: one past either is closed as it is accepted,
 *   before a byte of it is read (an answer would keep its descriptor while the
 *   client reads it, and a client at the cap already holds that many).
 */

/** The options Node's HTTP server takes for the bounds it keeps itself (passed to Fastify). */
export function serverOptions(config: Config): { http: ServerOptions; requestTimeout: number; connectionTimeout: number; keepAliveTimeout: number } {
  return {
    http: {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      // Node looks for requests past their time every this often (30 s by default): a quarter of the shortest.
      connectionsCheckingInterval: Math.min(30_000, Math.max(10, Math.floor(Math.min(config.headersTimeoutMs, config.requestTimeoutMs) / 4))),
      // A request without Host is answered by the app, in the error format (app.ts), not by Node's bare 400.
      requireHostHeader: false,
    },
    requestTimeout: config.requestTimeoutMs,
    // The socket timeout; what it closes is decided below (idle), not by Node's default of closing any socket.
    connectionTimeout: config.idleTimeoutMs,
    // Between two requests Node sets the socket's timeout to this instead (plus its own second): idle too.
    keepAliveTimeout: config.idleTimeoutMs,
  };
}

export interface ConnectionGuard {
  /** Open sockets per client address (for tests and the log). */
  openFrom(address: string): number;
  /** Sockets closed at once for being one too many from their address. */
  readonly refused: number;
}

/** `::ffff:127.0.0.1` and `127.0.0.1` are one client. */
const clientAddress = (socket: Socket): string => (socket.remoteAddress ?? '').replace(/^::ffff:/, '');

type HttpSocket = Socket & { _httpMessage?: { writableEnded?: boolean } | null; parser?: { incoming?: { complete?: boolean } | null } | null };

/**
 * Whether the server, not the client, is the one to speak on this socket: a response is under way
 * (built, streamed) for a request that has fully arrived.
 */
function answering(socket: HttpSocket): boolean {
  const response = socket._httpMessage;
  if (!response || response.writableEnded) return false;
  return socket.parser?.incoming?.complete !== false;
}

/** Installs the bounds on the app's server (before it listens) and the body timer on every request. */
export function guardConnections(app: FastifyInstance, config: Config, logger: Logger): ConnectionGuard {
  const server: Server = app.server as Server;
  server.maxConnections = config.maxConnections;
  const open = new Map<string, number>();
  const warned = new Set<string>();
  let refused = 0;

  server.on('connection', (socket: Socket) => {
    const address = clientAddress(socket);
    const cap = config.connectionsPerAddress;
    const n = (open.get(address) ?? 0) + 1;
    if (cap > 0 && n > cap) {
      refused += 1;
      // Once per spell at the cap, not once per refused socket: a client retrying in a loop must not flood the log.
      if (!warned.has(address)) {
        warned.add(address);
        logger.warn({ address, cap }, `limit ${limitName('connectionsPerAddress')}: a client address holds ${cap} connections; new ones are closed`);
      }
      socket.destroy();
      return;
    }
    open.set(address, n);
    socket.once('close', () => {
      const left = (open.get(address) ?? 1) - 1;
      if (left > 0) open.set(address, left);
      else open.delete(address);
      if (left < cap) warned.delete(address);
    });
  });
  server.on('drop', (data?: { remoteAddress?: string }) => {
    logger.warn({ address: data?.remoteAddress }, `limit ${limitName('maxConnections')}: ${config.maxConnections} connections are open; a new one was closed`);
  });

  // A listener here means Node leaves the decision to it: idle while the client is the one to speak, else kept.
  server.on('timeout', (socket: HttpSocket) => {
    if (!answering(socket)) socket.destroy();
  });

  // The body's own time, per route: an upload (a raw body) is bounded by PCG_REQUEST_TIMEOUT_MS alone.
  const bodyMs = config.bodyTimeoutMs;
  app.addHook('onRequest', (request, _reply, done) => {
    const req = request.raw;
    // Requests injected in process (tests, app.inject) have no socket to close.
    if (req.complete || !(req.socket instanceof Socket) || (request.routeOptions.config as { raw?: boolean } | undefined)?.raw) return done();
    const timer = setTimeout(() => {
      if (!req.complete) answerSocket(req.socket, 408, 'request_timeout', `limit ${limitName('bodyTimeoutMs')}: the request body must arrive within ${bodyMs} ms of its headers`);
    }, bodyMs);
    // Unref'd: it matters only while its socket is open, which holds the process anyway; a timer left by a request
    // the shutdown cut off must not keep a stopped server alive (the soak saw two Timeouts do so).
    timer.unref();
    // On the request, not its socket: a keep-alive socket carries many requests, and would gather their listeners.
    const clear = () => clearTimeout(timer);
    req.once('end', clear);
    req.once('close', clear);
    done();
  });

  return {
    openFrom: (address) => open.get(address) ?? 0,
    get refused() {
      return refused;
    },
  };
}
