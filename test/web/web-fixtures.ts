import { seedDemo } from '../../src/catalog/demo/demo-catalog.js';
import { IngestService } from '../../src/catalog/ingest/ingest.service.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

/** A small demo catalogue, a customer with two products, and an app ready to browse. */
export interface WebFixture {
  t: TestApp;
  username: string;
  password: string;
  /** an editorial image, a creative image and a video of the demo */
  editorialImage: string;
  creativeImage: string;
  video: string;
  /** images ingested from manifest lines without a file: one untitled with a caption, one with only a file name, one with neither */
  withoutFile: { captioned: string; named: string; bare: string };
}

export async function webFixture(options: { publicUrl: string; databaseUrl?: string | undefined; listen?: number }): Promise<WebFixture> {
  const t = await createTestApp({ databaseUrl: options.databaseUrl, env: { STOCKROOM_PUBLIC_URL: options.publicUrl } });
  await seedDemo({ catalog: t.services.catalog, blobs: t.services.blobs }, { images: 24, videos: 3, events: 4 });
  await t.services.changeFeed.poll();
  await t.services.search.settled();
  const username = 'ana';
  const password = 'correct horse battery staple';
  const user = await t.services.users.create({ username, password, first_name: 'Ana', last_name: 'Lima', email: 'ana@example.com' });
  await t.services.products.grant({ userId: user.id, type: 'premiumaccess', downloads: 50, period: 'month' });
  await t.services.products.grant({ userId: user.id, type: 'creditpack', credits: 40 });
  const pick = async (type: 'image' | 'video', family: string) => {
    for await (const batch of t.services.catalog.scanAssets()) {
      const found = batch.find((record) => record.asset_type === type && record.fields.asset_family === family);
      if (found) return found.id;
    }
    throw new Error(`the demo has no ${family} ${type}`);
  };
  const editorialImage = await pick('image', 'editorial');
  const creativeImage = await pick('image', 'creative');
  const video = await pick('video', 'creative').catch(() => pick('video', 'editorial'));
  // Added after the picks above, so that those are always assets with files.
  const ingest = new IngestService({ catalog: t.services.catalog, blobs: t.services.blobs });
  const licensable = { asset_type: 'image', asset_family: 'creative', license_model: 'royaltyfree', product_types: ['premiumaccess', 'creditpack'] };
  const withoutFile = { captioned: 'nofile-captioned', named: 'nofile-named', bare: 'nofile-bare' };
  await ingest.ingestRecord({ ...licensable, id: withoutFile.captioned, caption: 'A quiet harbour at dawn. Fishing boats rest on still water while gulls circle overhead.' });
  await ingest.ingestRecord({ ...licensable, id: withoutFile.named, object_name: 'harbour-dawn-0412.jpg' });
  await ingest.ingestRecord({ ...licensable, id: withoutFile.bare });
  await t.services.changeFeed.poll();
  await t.services.search.settled();
  return { t, username, password, editorialImage, creativeImage, video, withoutFile };
}
