import type { Services } from '../../src/app.js';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { makeJpeg } from '../helpers/catalog-fixtures.js';

/**
 * The catalogue the embed suites read, stored through ingest (as an operator's manifest would
 * be): an image that may be embedded, one whose line says `embeddable: false`, one without an
 * original (nothing to show), a video with a poster still, and an image whose text is markup.
 */
export const EMBEDDABLE = 'e1';
export const NOT_EMBEDDABLE = 'e2';
export const NO_ORIGINAL = 'e3';
export const VIDEO = 'v1';
export const MARKUP = 'e4';

export const EMBEDDABLE_TEXT = {
  title: 'Harbour at dawn',
  caption: 'Boats wait in the harbour at first light',
  artist: 'Maren Holt',
  collection_name: 'Stockroom Creative',
  credit_line: 'Maren Holt / Stockroom Creative',
};

export async function addEmbedCatalog(services: Services): Promise<void> {
  const ingest = new IngestService({ catalog: services.catalog, blobs: services.blobs });
  const common = { asset_family: 'creative', license_model: 'royaltyfree', collection_code: 'STK', collection_id: 101, product_types: ['creditpack'] };
  await ingest.ingestRecord({ asset_type: 'image', id: EMBEDDABLE, file: 'e1.jpg', ...common, ...EMBEDDABLE_TEXT }, await makeJpeg(1200, 800));
  await ingest.ingestRecord(
    { asset_type: 'image', id: NOT_EMBEDDABLE, file: 'e2.jpg', ...common, title: 'Kept off other sites', embeddable: false },
    await makeJpeg(800, 800, '#884422'),
  );
  await ingest.ingestRecord({ asset_type: 'image', id: NO_ORIGINAL, ...common, title: 'No file', max_dimensions: { width: 4000, height: 3000 } });
  await ingest.ingestRecord(
    { asset_type: 'video', id: VIDEO, file: 'v1.jpg', ...common, title: 'Yachts racing', artist: 'Ines Calder', clip_length: '00:00:24:12' },
    await makeJpeg(1920, 1080, '#225588'),
  );
  await ingest.ingestRecord(
    {
      asset_type: 'image',
      id: MARKUP,
      file: 'e4.jpg',
      ...common,
      title: '<script>alert("title")</script> & "quotes"',
      caption: '<img src=x onerror=alert(1)>',
      credit_line: '</figcaption><script>alert(2)</script>',
    },
    await makeJpeg(600, 900, '#446644'),
  );
}

/** The path and query of an absolute URL, for app.inject. */
export function pathOf(uri: string): string {
  const url = new URL(uri);
  return `${url.pathname}${url.search}`;
}
