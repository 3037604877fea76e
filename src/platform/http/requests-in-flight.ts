import type { Server } from 'node:http';

export interface RequestsInFlight {
  /** Requests received and not yet answered (or abandoned by their client). */
  readonly count: number;
  /** Resolves once no request is in flight (at once when none is). */
  drained(): Promise<void>;
}

/**
 * Counts the server's requests from their arrival (before their body is read) to the end of
 * their response, so that a shutdown knows what it waits for.
 */
export function trackRequestsInFlight(server: Server): RequestsInFlight {
  let count = 0;
  let waiting: Array<() => void> = [];
  server.on('request', (_request, response) => {
    count += 1;
    response.once('close', () => {
      count -= 1;
      if (count === 0) {
        for (const resolve of waiting) resolve();
        waiting = [];
      }
    });
  });
  return {
    get count() {
      return count;
    },
    drained() {
      return count === 0 ? Promise.resolve() : new Promise((resolve) => waiting.push(resolve));
    },
  };
}
