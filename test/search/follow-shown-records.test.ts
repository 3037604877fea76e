import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { STORES, createTestApp, type TestApp } from '../helpers/test-app.js';

/*
 * A collection or a keyword is one record that many assets show (its name, a keyword's type and
 * translations). When one changes, the index re-reads the assets that show it — and only those:
 * a whole rebuild would take minutes at millions of assets, on every node, for each keyword
 * translation an ingest brings. A new collection is in no document yet and needs nothing.
 */
describe.each(STORES)('the search index following a shared record on $name', ({ url }) => {
  let t: TestApp;
  let ingest: IngestService;
  const CREATIVE = { asset_family: 'creative', license_model: 'royaltyfree' } as const;

  const idsOf = async (query: string): Promise<string[]> => {
    const response = await t.app.inject({ method: 'GET', url: `/v3/search/images?${query}&fields=id&page_size=100`, headers: { 'api-key': t.apiKey } });
    expect(response.statusCode, response.body).toBe(200);
    return (response.json().images as Array<{ id: string }>).map((image) => image.id).sort();
  };
  const follow = async () => {
    await t.services.changeFeed.poll();
    await t.services.search.settled();
  };

  beforeEach(async () => {
    t = await createTestApp({ databaseUrl: url });
    ingest = new IngestService({ catalog: t.services.catalog, blobs: t.services.blobs });
    await t.services.search.build();
  }, 60_000);
  afterEach(async () => {
    vi.restoreAllMocks();
    await t.close();
  });

  it('re-reads the assets of a keyword whose translations change, without reading the whole store', async () => {
    const lighthouse = { text: 'lighthouse', type: 'Concept' };
    await ingest.ingestRecord({ asset_type: 'image', id: 'kw-1', title: 'Beacon on the cliff', keywords: [lighthouse], ...CREATIVE });
    await ingest.ingestRecord({ asset_type: 'image', id: 'kw-2', title: 'Beacon at night', keywords: [lighthouse], ...CREATIVE });
    await ingest.ingestRecord({ asset_type: 'image', id: 'kw-3', title: 'Beacon in fog', keywords: ['fog'], ...CREATIVE });
    await follow();
    expect(await idsOf('phrase=leuchtturm')).toEqual([]);

    const scans = vi.spyOn(t.services.catalog, 'scanAssets');
    const reads = vi.spyOn(t.services.catalog, 'findAssets');
    // A later record states the keyword's German name: the keyword changes for kw-1 and kw-2 too.
    await ingest.ingestRecord({
      asset_type: 'image',
      id: 'kw-4',
      title: 'Beacon at dawn',
      keywords: [{ ...lighthouse, translations: { de: 'Leuchtturm' } }],
      ...CREATIVE,
    });
    await follow();

    // (read before searching: a page of results is loaded through findAssets too)
    expect(reads.mock.calls.flatMap(([, ids]) => [...ids]).sort()).toEqual(['kw-1', 'kw-2', 'kw-4']);
    expect(scans).not.toHaveBeenCalled();
    expect(await idsOf('phrase=leuchtturm')).toEqual(['kw-1', 'kw-2', 'kw-4']);
  });

  it('re-reads the assets of a renamed collection, and nothing for a new collection', async () => {
    const harbour = { collection_code: 'HRB', collection_id: 4101, collection_name: 'Harbour' };
    await ingest.ingestRecord({ asset_type: 'image', id: 'col-1', title: 'Cranes at the quay', ...harbour, ...CREATIVE });
    await ingest.ingestRecord({ asset_type: 'image', id: 'col-2', title: 'Cranes at dusk', ...CREATIVE });
    await follow();

    const scans = vi.spyOn(t.services.catalog, 'scanAssets');
    const reads = vi.spyOn(t.services.catalog, 'findAssets');
    await ingest.ingestRecord({ asset_type: 'image', id: 'col-3', title: 'Cranes in rain', collection_code: 'NEW', collection_id: 4102, collection_name: 'New arrivals', ...CREATIVE });
    await follow();
    expect(reads.mock.calls.flatMap(([, ids]) => [...ids])).toEqual(['col-3']);

    reads.mockClear();
    await ingest.ingestRecord({ asset_type: 'image', id: 'col-4', title: 'Cranes at noon', ...harbour, collection_name: 'Harbour Archive' });
    await follow();
    expect(reads.mock.calls.flatMap(([, ids]) => [...ids]).sort()).toEqual(['col-1', 'col-4']);
    expect(scans).not.toHaveBeenCalled();
    expect(await idsOf('phrase=cranes')).toEqual(['col-1', 'col-2', 'col-3', 'col-4']);
    expect(await idsOf('phrase=cranes&collection_codes=HRB&collections_filter_type=include')).toEqual(['col-1', 'col-4']);
  });
});
