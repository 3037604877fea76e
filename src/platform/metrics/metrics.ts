import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/** Every metric's name starts with this, so that an operator's dashboards find them together. */
const PREFIX = 'stockroom_';

/** Latency buckets in seconds: from a cached metadata read (a millisecond) to a slow download. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** One value of a gauge read when the metrics are scraped, with its labels (none for a plain number). */
export interface GaugeReading {
  labels?: Record<string, string>;
  value: number;
}

/**
 * This node's Prometheus metrics. The platform owns the registry and the metrics every request
 * passes through (requests, throttle refusals); a module adds its own through `gauge`,
 * `counter` and `histogram` while it is built, so that no module imports another to be measured.
 * A gauge whose value lives elsewhere (an index's size, a queue's depth) is read at scrape time.
 */
export class Metrics {
  readonly registry = new Registry();
  /** Requests by route pattern (never the raw URL, which would make a series per id) and status. */
  readonly requests: Histogram<'method' | 'route' | 'status'>;
  /** Calls the throttle refused, by the window that was exceeded. */
  readonly throttleRefusals: Counter<'window'>;
  private processMetrics = false;
  private readonly scrapeHooks: Array<() => Promise<void>> = [];

  constructor() {
    this.requests = this.histogram('http_request_duration_seconds', 'Time to answer a request, by method, route pattern and status', ['method', 'route', 'status']);
    this.throttleRefusals = this.counter('throttle_refusals_total', 'Requests refused by the per-key throttle, by the window exceeded (second or day)', ['window']);
  }

  counter<Label extends string>(name: string, help: string, labelNames: readonly Label[] = []): Counter<Label> {
    return new Counter({ name: PREFIX + name, help, labelNames, registers: [this.registry] });
  }

  histogram<Label extends string>(name: string, help: string, labelNames: readonly Label[] = [], buckets = LATENCY_BUCKETS): Histogram<Label> {
    return new Histogram({ name: PREFIX + name, help, labelNames, buckets, registers: [this.registry] });
  }

  /**
   * A gauge read when scraped. A read that fails leaves the gauge without a value for that
   * scrape (the series goes stale) rather than failing the whole scrape: a store that is down
   * must not hide the metrics that show it.
   */
  gauge(name: string, help: string, read: () => number | GaugeReading[] | Promise<number | GaugeReading[]>, labelNames: readonly string[] = []): void {
    new Gauge({
      name: PREFIX + name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        let readings: number | GaugeReading[];
        try {
          readings = await read();
        } catch {
          return;
        }
        if (typeof readings === 'number') this.set(readings);
        else for (const { labels, value } of readings) this.set(labels ?? {}, value);
      },
    });
  }

  /**
   * The process's own metrics (memory, CPU, event-loop delay, collections). Only a serving
   * process turns them on: they start timers and observers that a short-lived command or a
   * test's many applications should not leave behind.
   */
  collectProcessMetrics(): void {
    if (this.processMetrics) return;
    this.processMetrics = true;
    collectDefaultMetrics({ register: this.registry, prefix: PREFIX });
  }

  /**
   * Work to do before each scrape, for counters that are read from elsewhere (the ledger's
   * debits, read from the ledger on from the last row counted). A hook that fails is skipped.
   */
  beforeScrape(hook: () => Promise<void>): void {
    this.scrapeHooks.push(hook);
  }

  /** The text exposition format Prometheus scrapes. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    await Promise.all(this.scrapeHooks.map((hook) => hook().catch(() => undefined)));
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
