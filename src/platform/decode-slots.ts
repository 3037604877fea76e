import { imageDecodersBusy } from './http/errors.js';

/**
 * How many pictures this process decodes at once on a request path (uploads, file
 * registrations, masks and the sources of generation requests). A decode holds the picture's
 * pixels, tens or hundreds of megabytes for a large photograph, so a burst of requests could
 * otherwise take the process's memory with it: here at most `concurrency` run, the next
 * `queue` wait their turn in arrival order, and any more are refused at once with 503
 * ImageDecodersBusy and Retry-After, before any of their pixels exist.
 */
export class DecodeSlots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly concurrency: number,
    readonly queue: number,
  ) {
    if (!(Number.isInteger(concurrency) && concurrency >= 1)) throw new Error(`decode concurrency must be a whole number of at least 1, got ${concurrency}`);
    if (!(Number.isInteger(queue) && queue >= 0)) throw new Error(`decode queue must be a whole number of at least 0, got ${queue}`);
  }

  /** Decodes running now. */
  get active(): number {
    return this.running;
  }

  /** Decodes waiting for a slot. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Runs `decode` once a slot is free; 503 ImageDecodersBusy when the queue is full. */
  async run<T>(decode: () => Promise<T>): Promise<T> {
    if (this.running < this.concurrency) {
      this.running += 1;
    } else {
      if (this.waiting.length >= this.queue) {
        throw imageDecodersBusy(this.concurrency, this.queue);
      }
      // The slot is handed over by the one that finishes, so `running` stays as it is.
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    try {
      return await decode();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
