import type { Server, ServerResponse } from 'node:http';

export interface RequestsInFlight {
  /** Requests received and not yet answered (or abandoned by their client). */
  readonly count: number;
  /** Resolves once no request is in flight (at once when none is). */
  drained(): Promise<void>;
  /**
   * The answers still to come say `Connection: close` (those whose headers are not yet sent),
   * so that a client does not send its next request on a connection that is about to go.
   */
  lastOnTheirConnections(): void;
}

/**
 * Counts the server's requests from their arrival (before their body is read) to the end of
 * their response, so that a shutdown knows what it waits for.
 */
export function trackRequestsInFlight(server: Server): RequestsInFlight {
  const open = new Set<ServerResponse>();
  let closing = false;
  let waiting: Array<() => void> = [];
  server.on('request', (_request, response: ServerResponse) => {
    open.add(response);
    if (closing) response.shouldKeepAlive = false;
    response.once('close', () => {
      open.delete(response);
      if (open.size === 0) {
        for (const resolve of waiting) resolve();
        waiting = [];
      }
    });
  });
  return {
    get count() {
      return open.size;
    },
    drained() {
      return open.size === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve));
    },
    lastOnTheirConnections() {
      closing = true;
      for (const response of open) if (!response.headersSent) response.shouldKeepAlive = false;
    },
  };
}
