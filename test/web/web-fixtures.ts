import { seedDemo } from '../../src/catalog/demo/demo-catalog.js';
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
  return {
    t,
    username,
    password,
    editorialImage: await pick('image', 'editorial'),
    creativeImage: await pick('image', 'creative'),
    video: await pick('video', 'creative').catch(() => pick('video', 'editorial')),
  };
}
