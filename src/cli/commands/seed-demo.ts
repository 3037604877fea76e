import { InvalidArgumentError, type Command } from 'commander';
import type { Services } from '../../app.js';
import { DEFAULT_DEMO, seedDemo } from '../../catalog/demo/demo-catalog.js';
import { NudityClassifier } from '../../media/nudity-classifier.js';
import { ensureDemoAccess } from '../demo-access.js';
import { count, withServices } from '../options.js';
import { progressBar } from '../progress.js';

/** A demo size: whole, and small enough that the plan of it fits in memory. */
function demoCount(max: number) {
  return (value: string): number => {
    const n = count(value);
    if (n > max) throw new InvalidArgumentError(`must be at most ${max}`);
    return n;
  };
}

/** Seeds the demo catalogue, showing its progress; its pictures are scored for nudity unless STOCKROOM_NUDITY_CLASSIFIER is off. */
export async function seedDemoCatalogue(services: Services, amounts: { images: number; videos: number; events: number }) {
  const bar = progressBar('Seeding demo catalogue');
  const classifier = services.config.mediaFacts.classifyNudity ? new NudityClassifier() : undefined;
  try {
    return await seedDemo(
      { catalog: services.catalog, blobs: services.blobs, videoTools: services.videoTools, classifier, displayFiles: services.media },
      { ...amounts, onProgress: bar.update },
    );
  } finally {
    bar.stop();
    await classifier?.close();
  }
}

export function addSeedDemoCommand(program: Command): void {
  program
    .command('seed-demo')
    .description('add the deterministic demo catalogue to the store')
    .option('--images <n>', 'number of images (at most 100000)', demoCount(100_000), DEFAULT_DEMO.images)
    .option('--videos <n>', 'number of videos (at most 10000)', demoCount(10_000), DEFAULT_DEMO.videos)
    .option('--events <n>', 'number of events (at most 10000)', demoCount(10_000), DEFAULT_DEMO.events)
    .action(async (options: { images: number; videos: number; events: number }) => {
      await withServices(async (services) => {
        const seeded = await seedDemoCatalogue(services, options);
        const demo = await ensureDemoAccess(services);
        process.stdout.write(
          `Seeded ${seeded.images} images, ${seeded.videos} videos and ${seeded.events} events.\n` +
            `Demo API key: ${demo.access.api_key} (its secret and the password of demo user ${demo.access.username} are in ${demo.file})\n` +
            (demo.access.admin_username === undefined ? '' : `Demo admin of the back office (/admin): ${demo.access.admin_username} (the password is in ${demo.file})\n`),
        );
      });
    });
}
