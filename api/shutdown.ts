import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/** Long-lived answers (graph streams) are not waited for: closing the app ends them. */
const isStream = (req: IncomingMessage): boolean => /\/graph\/stream\/?$/.test((req.url ?? '').split('?')[0]!);

export interface Drain {
  /** Requests being answered now (graph streams left out). */
  inFlight(): number;
  /**
   * Stops accepting connections (idle keep-alive ones are closed), asks
   * clients to close after their answer, and waits until the requests in
   * flight are answered or `graceMs` has passed. Returns how many were left.
   */
  drain(graceMs: number): Promise<{ waitedMs: number; left: number }>;
}

/**
 * Counts the requests a Node HTTP server is answering, for a graceful stop:
 * Fastify's own close (forceCloseConnections, which graph streams need) would
 * cut them, so `pcg serve` drains first and closes the app after.
 */
export function trackRequests(server: Server): Drain {
  const open = new Set<ServerResponse>();
  let draining = false;
  let settle: (() => void) | undefined;
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (draining && !res.headersSent) res.setHeader('connection', 'close');
    if (isStream(req)) return;
    open.add(res);
    res.once('close', () => {
      open.delete(res);
      if (open.size === 0) settle?.();
    });
  });
  return {
    inFlight: () => open.size,
    async drain(graceMs) {
      const started = Date.now();
      draining = true;
      // Node 19+: also closes connections with no request in flight.
      server.close();
      if (open.size > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          settle = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return { waitedMs: Date.now() - started, left: open.size };
    },
  };
}
