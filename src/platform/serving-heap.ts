import v8 from 'node:v8';

/**
 * Turns off V8's allocation-site pretenuring for a process that serves searches. V8 moves an
 * allocation site to the old generation once most of its objects outlive a young collection;
 * a search's result objects (a facet's 300 counts, say) are short-lived, but a collection
 * that lands while a response is being written finds them alive, and from then on every
 * search's results went straight to the old generation: 20 KB a search, a full collection
 * every few seconds, whose marking steps of up to 4 ms fell inside searches (the p99 of the
 * facet class, see the README's design notes). Without it they die young, as they should;
 * loading an index from its snapshot takes no longer.
 */
export function keepRequestGarbageYoung(): void {
  v8.setFlagsFromString('--no-allocation-site-pretenuring');
}
