import path from 'node:path';
import { seededRandom } from '../../platform/seeded-random.js';
import { drawDemoImage, type DemoImageRequest } from '../../media/draw-demo-image.js';
import { drawDemoEps, type DemoEpsRequest } from '../../media/draw-demo-eps.js';
import { ffmpegRate, makeDemoClip, PAN_MARGIN } from '../../media/video/demo-clip.js';
import { withScratch } from '../../media/video/video-renders.js';
import { originalSizeName } from '../../media/video/video-sizes.js';
import { VideoTools } from '../../media/video/video-tools.js';
import { IngestService, type IngestDeps } from '../ingest/ingest.service.js';
import {
  AGE_KEYWORDS,
  ARTISTS,
  CAMERAS,
  COLLECTIONS,
  COMPOSITION_KEYWORDS,
  ETHNICITY_KEYWORDS,
  EVENT_TEMPLATES,
  FIRST_NAMES,
  FRAME_RATES,
  KEYWORD_TRANSLATIONS,
  LAST_NAMES,
  MONOCHROME_PALETTE,
  MOOD_KEYWORDS,
  NUMBER_OF_PEOPLE_KEYWORDS,
  PLACES,
  SHOT_SPEEDS,
  TECHNIQUE_KEYWORDS,
  THEMES,
  TIMES,
  VIEWPOINT_KEYWORDS,
  type Artist,
  type Collection,
  type EventTemplate,
  type Place,
  type Theme,
} from './demo-data.js';

/*
 * The demo catalogue: believable images, videos and events, the same on every run.
 * Every value comes from a seeded generator keyed by the asset's position, and the
 * records are written in a fixed order, so ids, titles, keyword ids and pictures never
 * change. Records go through IngestService.ingestRecord, the very path a manifest line
 * takes: validated by the manifest schema, the picture probed and stored, sizes derived.
 */

export const DEFAULT_DEMO = { images: 240, videos: 24, events: 16 } as const;

export interface DemoOptions {
  images: number;
  videos: number;
  events: number;
  onProgress?: (done: number, total: number) => void;
}

export interface DemoCounts {
  images: number;
  videos: number;
  events: number;
}

export const FIRST_IMAGE_ID = 1_000_001;
export const FIRST_VIDEO_ID = 2_000_001;
export const FIRST_EVENT_ID = 500_001;
/** The demo video whose clip is 1920×1080. */
export const FULL_HD_VIDEO_INDEX = 12;
/**
 * The clips larger than SD (the others are 640×360), by position: a 4K one of each family,
 * so that format_available=4k finds something on the creative and the editorial search, a
 * full HD creative one and an HD 720p editorial one. All past the first eight videos, which
 * tests seed. A 4K clip is short: its frames are the costliest of the seed.
 */
const LARGE_CLIPS: Readonly<Record<number, { size: readonly [number, number]; seconds?: number }>> = {
  10: { size: [3840, 2160], seconds: 1.5 },
  11: { size: [3840, 2160], seconds: 1.5 },
  [FULL_HD_VIDEO_INDEX]: { size: [1920, 1080] },
  13: { size: [1280, 720] },
};

/** The frame sizes of SD clips, one per aspect ratio the video searches filter by (16:9, 4:3, 3:4, …). */
const SD_FRAMES: ReadonlyArray<readonly [number, number]> = [
  [640, 360],
  [480, 360],
  [360, 640],
  [360, 480],
  [288, 360],
  [720, 360],
  [680, 360],
  [360, 680],
];

/**
 * Pictures of other sizes than the usual 1600 px, by image position: one very large picture
 * of each family (minimum_size up to xx_large finds it) and small ones (below small's 1024 px).
 * All past the first 60 images, which tests seed.
 */
const SPECIAL_PICTURE_SIZES: Readonly<Record<number, readonly [number, number]>> = {
  65: [7200, 4800],
  68: [7200, 4800],
  62: [960, 640],
  63: [960, 640],
  71: [640, 960],
};

/**
 * Assets a photo library's own moderation scored as showing nudity (swimwear, a life-drawing
 * class), by position. The demo's pictures are drawn landscapes that the nudity classifier
 * never flags, so these carry the library's scores as catalogue facts (the ingest field
 * nudity_scores), the way a library that moderated its content before ingest would give them;
 * every other asset is scored by the classifier when seeding runs it. Past the assets tests seed.
 */
const MODERATED_IMAGES: Readonly<Record<number, string>> = {
  64: 'Sunbather in a swimsuit on a beach in {city}',
  66: 'Swimwear collection shown on the runway at the {event}',
  74: 'Life-drawing class with a nude model in {city}',
};
const MODERATED_VIDEOS: Readonly<Record<number, string>> = {
  15: 'Sunbathers in swimwear by a pool in {city}',
  16: 'Swimwear collection shown on the runway at the {event}',
};
/** The library's scores of a moderated asset: mostly swimwear (sexy), as the classifier's five classes. */
const MODERATION_SCORES = { drawing: 0.02, hentai: 0.01, neutral: 0.17, porn: 0.08, sexy: 0.72 } as const;

/** Pictures rendered at once; sharp renders off the main thread, and two cores gain nothing from more. */
const RENDER_CONCURRENCY = 3;

/** One asset of the plan: its manifest record and the picture to draw for it. */
export interface DemoAsset {
  record: Record<string, unknown>;
  /** The still of an image; for a video, its first scene (drawn larger, for the camera to pan across). */
  picture: DemoImageRequest;
  /** A video's clip: made at seed time from `picture` and a second scene. */
  clip?: DemoClipPlan;
  /** A vector picture's EPS original (the record's `eps_file`), written at seed time. */
  eps?: DemoEpsRequest;
}

/** A demo video's file: a few seconds panning across two drawn scenes, cut between them. */
export interface DemoClipPlan {
  width: number;
  height: number;
  seconds: number;
  frameRate: number;
  /** The second scene. */
  secondScene: DemoImageRequest;
}

export interface DemoPlan {
  images: DemoAsset[];
  videos: DemoAsset[];
  events: Array<Record<string, unknown>>;
}

/**
 * Seeds the demo catalogue into the store; running it again rewrites the same records. With a
 * classifier, every picture (a video's poster too) is scored for nudity as ingest scores any,
 * except the few whose records carry the library's own scores (MODERATED_IMAGES).
 */
export async function seedDemo(
  deps: Pick<IngestDeps, 'catalog' | 'blobs' | 'videoTools' | 'classifier' | 'displayFiles'>,
  options: DemoOptions,
): Promise<DemoCounts> {
  const plan = planDemoCatalog(options);
  const videoTools = deps.videoTools ?? VideoTools.fromEnvironment();
  const ingest = new IngestService({ ...deps, videoTools });
  const total = plan.images.length + plan.videos.length + plan.events.length;
  let done = 0;
  const tick = () => {
    done += 1;
    options.onProgress?.(done, total);
  };
  await renderAndStoreInOrder([...plan.images, ...plan.videos], async (asset, picture) => {
    if (asset.clip === undefined) await ingest.ingestRecord(asset.record, picture, asset.eps === undefined ? undefined : drawDemoEps(asset.eps));
    else {
      const { clip } = asset;
      const secondScene = await drawDemoImage(clip.secondScene);
      await withScratch(async (dir) => {
        const videoPath = path.join(dir, 'clip.mp4');
        await makeDemoClip(videoTools, { scenes: [picture, secondScene], width: clip.width, height: clip.height, seconds: clip.seconds, rate: ffmpegRate(clip.frameRate) }, videoPath);
        await ingest.ingestRecord(asset.record, { videoPath });
      });
    }
    tick();
  });
  for (const event of plan.events) {
    await ingest.ingestRecord(event);
    tick();
  }
  return { images: plan.images.length, videos: plan.videos.length, events: plan.events.length };
}

/**
 * Draws up to RENDER_CONCURRENCY pictures ahead while the records are stored one by one
 * in plan order; the order keeps keyword and artist ids the same from run to run.
 */
async function renderAndStoreInOrder(
  assets: readonly DemoAsset[],
  store: (asset: DemoAsset, picture: Buffer) => Promise<void>,
): Promise<void> {
  const pending: Array<Promise<Buffer>> = [];
  let next = 0;
  const fill = () => {
    while (next < assets.length && pending.length < RENDER_CONCURRENCY) {
      const rendering = drawDemoImage(assets[next]!.picture);
      // Awaited below in order; this only keeps an early failure from being reported as unhandled.
      rendering.catch(() => undefined);
      pending.push(rendering);
      next += 1;
    }
  };
  for (const asset of assets) {
    fill();
    const picture = await pending.shift()!;
    fill();
    await store(asset, picture);
  }
}

// ── the plan ────────────────────────────────────────────────────────────────

/** The whole demo as data, without drawing or storing anything. */
export function planDemoCatalog(options: { images: number; videos: number; events: number }): DemoPlan {
  for (const [name, value] of Object.entries({ images: options.images, videos: options.videos, events: options.events })) {
    if (!Number.isInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number ≥ 0, got ${value}`);
  }
  const events = planEvents(options.events);
  const images = planImages(options.images, events);
  const videos = planVideos(options.videos, events);
  return { images, videos, events: events.map(eventRecord) };
}

interface PlannedEvent {
  id: number;
  name: string;
  template: EventTemplate;
  theme: Theme;
  place: Place;
  start: Date;
  parentId: number | undefined;
  /** The person most pictured at the event. */
  star: string;
  heroImageId: string | undefined;
}

/** Every fourth event is a session of the one before it (a child event). */
function planEvents(count: number): PlannedEvent[] {
  const events: PlannedEvent[] = [];
  let topLevel = 0;
  for (let index = 0; index < count; index += 1) {
    const id = FIRST_EVENT_ID + index;
    const random = seededRandom(hashSeed('event', index));
    const parent = index % 4 === 3 ? events[index - 1] : undefined;
    if (parent) {
      events.push({
        ...parent,
        id,
        name: `${parent.name}: ${parent.template.childLabel}`,
        start: new Date(parent.start.getTime() + 26 * HOUR),
        parentId: parent.id,
        star: personName(random),
        heroImageId: undefined,
      });
      continue;
    }
    const round = Math.floor(topLevel / EVENT_TEMPLATES.length);
    const template = EVENT_TEMPLATES[topLevel % EVENT_TEMPLATES.length]!;
    const year = 2021 + ((topLevel + round * 2) % 5);
    const start = new Date(Date.UTC(year, (topLevel * 5 + round) % 12, 1 + ((topLevel * 7 + round * 3) % 27), 8 + (topLevel % 6), 0, 0));
    events.push({
      id,
      name: `${template.name} ${year}`,
      template,
      theme: themeByKey(template.theme),
      place: PLACES[template.place]!,
      start,
      parentId: undefined,
      star: personName(random),
      heroImageId: undefined,
    });
    topLevel += 1;
  }
  return events;
}

function eventSegments(event: PlannedEvent): string[] {
  return [...new Set([...event.theme.segments, ...(event.template.extraSegments ?? [])])];
}

function eventRecord(event: PlannedEvent): Record<string, unknown> {
  return {
    asset_type: 'event',
    id: event.id,
    name: event.name,
    start_date: isoSeconds(event.start),
    ...(event.parentId === undefined ? {} : { parent_id: event.parentId }),
    type: event.template.type,
    editorial_segments: eventSegments(event),
    ...(event.heroImageId === undefined ? {} : { hero_image_id: event.heroImageId }),
    location: {
      city: event.place.city,
      country: event.place.country,
      state_province: event.place.state_province,
      venue: event.template.venue,
    },
    keywords: [
      { text: event.theme.keywords[0]!, type: 'Concept' },
      { text: event.place.city, type: 'Location' },
      event.template.type.toLowerCase(),
    ],
  };
}

type Orientation = 'Horizontal' | 'Vertical' | 'Square' | 'PanoramicHorizontal' | 'PanoramicVertical';

/** Mostly landscape, like any photo library; the first five cover every orientation. */
const ORIENTATION_CYCLE: readonly Orientation[] = [
  'Horizontal',
  'Vertical',
  'Square',
  'PanoramicHorizontal',
  'PanoramicVertical',
  'Horizontal',
  'Horizontal',
  'Vertical',
  'Horizontal',
  'Horizontal',
  'Square',
  'Vertical',
];

/** Pixel sizes per orientation: long edge 1600, panoramas 2400 × 800 (orientation is derived from these). */
const PICTURE_SIZES: Readonly<Record<Orientation, ReadonlyArray<readonly [number, number]>>> = {
  Horizontal: [
    [1600, 1067],
    [1600, 900],
    [1600, 1200],
  ],
  Vertical: [
    [1067, 1600],
    [1200, 1600],
  ],
  Square: [[1400, 1400]],
  PanoramicHorizontal: [[2400, 800]],
  PanoramicVertical: [[800, 2400]],
};

/** About 40 % editorial: positions 1 and 3 of every five. */
const isEditorialPosition = (index: number) => index % 5 === 1 || index % 5 === 3;

/** Creative pictures come from shoots of this many: one artist, theme, place and collection on one day. */
const SHOOT_SIZE = 3;

/** A creative shoot: what the pictures of one series share (see same-series in src/search/related-assets.ts). */
interface Shoot {
  theme: Theme;
  place: Place;
  artist: Artist;
  collection: Collection;
  prestige: boolean;
  /** 08:00 UTC of the shoot's day; its pictures are taken within the next eight hours. */
  morning: number;
}

function planShoot(index: number): Shoot {
  const random = seededRandom(hashSeed('shoot', index));
  const theme = pick(random, THEMES);
  const prestige = index % 9 === 4;
  const day = creativeDate(random).getTime();
  return {
    theme,
    place: pick(random, PLACES),
    artist: ARTISTS[pick(random, theme.creativeArtists)]!,
    collection: creativeCollection(random, prestige),
    prestige,
    morning: Math.floor(day / DAY) * DAY + 8 * HOUR,
  };
}

function planImages(count: number, events: PlannedEvent[]): DemoAsset[] {
  const assets: DemoAsset[] = [];
  let editorialCount = 0;
  let creativeCount = 0;
  for (let index = 0; index < count; index += 1) {
    const id = String(FIRST_IMAGE_ID + index);
    const random = seededRandom(hashSeed('image', index));
    const editorial = isEditorialPosition(index);
    const event = editorial && events.length > 0 ? events[editorialCount % events.length] : undefined;
    const shoot = editorial ? undefined : planShoot(Math.floor(creativeCount / SHOOT_SIZE));
    const theme = event?.theme ?? shoot?.theme ?? pick(random, THEMES);
    const place = event?.place ?? shoot?.place ?? pick(random, PLACES);
    const monochrome = index % 11 === 7;
    const prestige = shoot?.prestige ?? false;
    const collection = shoot?.collection ?? collectionByCode(theme.editorialCollection);
    const artist = shoot?.artist ?? ARTISTS[pick(random, theme.editorialArtists)]!;
    const people = editorial ? peopleFor(random, event) : [];
    const order = editorial ? editorialCount : creativeCount;
    const plannedTitle = editorial ? editorialTitle(random, theme, event, people[0]!, place) : creativeTitle(random, theme, place);
    const moderated = MODERATED_IMAGES[index];
    const title = moderated === undefined ? plannedTitle : fill(moderated, { city: place.city, event: event?.name ?? 'Fashion Week' });
    const created = event
      ? new Date(event.start.getTime() + between(random, 0.5, 9) * HOUR)
      : shoot
        ? new Date(shoot.morning + Math.floor(between(random, 0, 8) * 60) * 60_000)
        : creativeDate(random);
    const submitted = new Date(created.getTime() + (editorial ? between(random, 1, 20) * HOUR : between(random, 3, 60) * DAY));
    const record: Record<string, unknown> = {
      asset_type: 'image',
      id,
      title,
      caption: editorial ? editorialCaption(title, place, event, created, artist, collection) : creativeCaption(random, theme, title),
      artist: artist.name,
      artist_title: artist.title,
      ...collectionFields(collection),
      call_for_image: collection.code === 'ENT' && random() < 0.25,
      city: place.city,
      state_province: place.state_province,
      country: place.country,
      color_type: monochrome ? 'black_and_white' : 'color',
      graphical_style: index % 17 === 5 ? 'Fine Art' : index % 29 === 13 ? 'Illustration' : index % 23 === 19 ? 'Vector' : 'Photography',
      copyright: `© ${created.getUTCFullYear()} ${artist.name}`,
      credit_line: `${artist.name}/${collection.name}`,
      date_created: isoSeconds(created),
      date_submitted: isoSeconds(submitted),
      // 0 is best; minimum_quality_rank (1 to 3) leaves out the ranks below it.
      quality_rank: Math.floor(random() * 5),
      allowed_use: allowedUse(collection, { editorialUseOnly: !editorial && order % 12 === 7 }),
      keywords: [
        ...keywordsFor(random, theme, place, people, event, monochrome),
        ...factKeywords(order, { ages: 2, ethnicities: 1, compositions: 2, mood: true }),
      ],
      referral_destinations: [
        { site_name: 'stockroom', uri: `https://www.stockroom.example/photos/${slug(title)}/${id}` },
      ],
      links: event
        ? [{ rel: 'event', uri: `https://www.stockroom.example/events/${event.id}` }]
        : [{ rel: 'artist', uri: `https://www.stockroom.example/artists/${slug(artist.name)}` }],
    };
    record.product_types = assetProductTypes(collection, order, editorial ? 'image' : undefined);
    // Some assets other sites may not embed (embed_content_only).
    if (index % 13 === 6) record.embeddable = false;
    if (moderated !== undefined) record.nudity_scores = { ...MODERATION_SCORES };
    if (editorial) {
      record.editorial_segments = event ? eventSegments(event) : [...theme.segments];
      // Editorial has prestige pictures too: a portrait session's best frames.
      if (order % 10 === 4) record.prestige = true;
      record.editorial_source = { id: collection.id, name: collection.name };
      record.people = people;
      record.date_camera_shot = record.date_created;
      if (event) record.event_ids = [event.id];
      if (event && event.heroImageId === undefined) event.heroImageId = id;
      editorialCount += 1;
    } else {
      const signature = collection.code === 'LUM' || (collection.code === 'VIS' && random() < 0.3);
      record.partner_collection = signature ? 'signature' : 'essentials';
      record.partner_licenses = signature
        ? [
            { license_type: 'Standard', credits: 3 },
            { license_type: 'Multiseat', credits: 6 },
            { license_type: 'Unlimited', credits: 12 },
            { license_type: 'Indemnification', credits: 2 },
          ]
        : [
            { license_type: 'Standard', credits: 1 },
            { license_type: 'Multiseat', credits: 2 },
            { license_type: 'Unlimited', credits: 4 },
          ];
      record.is_ai_editable = true;
      if (prestige) record.prestige = true;
      if (random() < 0.5) record.date_camera_shot = record.date_created;
      creativeCount += 1;
    }
    // Both accepted forms of alternative_ids appear.
    if (index % 7 === 2) record.alternative_ids = { legacy_id: `LGC-${(index * 7919) % 100000}` };
    if (index % 7 === 5) record.alternative_ids = [{ Key: 'original_filename', Value: `DSC_${String(1000 + ((index * 37) % 9000))}.jpg` }];
    const planned = pick(random, PICTURE_SIZES[ORIENTATION_CYCLE[index % ORIENTATION_CYCLE.length]!]);
    const [width, height] = SPECIAL_PICTURE_SIZES[index] ?? planned;
    const palette = [...(monochrome ? MONOCHROME_PALETTE : pick(random, theme.palettes))];
    // A vector picture comes with its EPS original (file_types=eps, downloads with file_type=eps),
    // its bounding box the picture's size in points.
    const eps = record.graphical_style === 'Vector' ? { seed: hashSeed('eps', index), width, height, title, palette } : undefined;
    if (eps) record.eps_file = `${id}.eps`;
    assets.push({ record, picture: { seed: hashSeed('picture', index), width, height, title, palette }, ...(eps ? { eps } : {}) });
  }
  return assets;
}

function planVideos(count: number, events: PlannedEvent[]): DemoAsset[] {
  const assets: DemoAsset[] = [];
  let editorialCount = 0;
  let creativeCount = 0;
  // SD clips of each family, counted apart: they go round the aspect ratios.
  let editorialSd = 0;
  let creativeSd = 0;
  for (let index = 0; index < count; index += 1) {
    const id = `v${FIRST_VIDEO_ID + index}`;
    const random = seededRandom(hashSeed('video', index));
    const editorial = isEditorialPosition(index);
    // Editorial videos start half-way round the events, so they cover others than the first images do.
    const event =
      editorial && events.length > 0 ? events[(editorialCount + Math.floor(events.length / 2)) % events.length] : undefined;
    const theme = event?.theme ?? pick(random, THEMES);
    const place = event?.place ?? pick(random, PLACES);
    const order = editorial ? editorialCount : creativeCount;
    const stockCollection = random() < 0.6 ? 'VIS' : 'STK';
    // Every fifth creative clip is from the signature collection, sold rights-ready.
    const collection = collectionByCode(editorial ? theme.editorialCollection : order % 5 === 3 ? 'LUM' : stockCollection);
    const artist = ARTISTS[random() < 0.5 ? 9 : pick(random, editorial ? theme.editorialArtists : theme.creativeArtists)]!;
    const people = editorial ? peopleFor(random, event) : [];
    // Shot speed and frame rate go round their values within each family, so every value of
    // image_techniques and frame_rates finds clips on each video search. (The draws stay, so
    // that the values drawn after them do not change.)
    pick(random, SHOT_SPEEDS);
    const shotSpeed = SHOT_SPEEDS[order % SHOT_SPEEDS.length]!;
    const plannedTitle = editorial ? editorialTitle(random, theme, event, people[0]!, place) : creativeTitle(random, theme, place);
    const moderated = MODERATED_VIDEOS[index];
    const baseTitle = moderated === undefined ? plannedTitle : fill(moderated, { city: place.city, event: event?.name ?? 'Fashion Week' });
    const title = shotSpeed === 'Slow Motion' ? `${baseTitle}, slow motion` : shotSpeed === 'Time Lapse' ? `Time lapse: ${baseTitle}` : baseTitle;
    pick(random, FRAME_RATES);
    const frameRate = FRAME_RATES[order % FRAME_RATES.length]!;
    const large = LARGE_CLIPS[index];
    // 3 to 7 seconds: long enough to show, short enough to seed in seconds (ffmpeg makes each
    // clip); a clip larger than SD is shorter, as its frames cost more.
    const plannedSeconds = 3 + (Math.floor(random() * 38) % 4);
    const seconds = large === undefined ? plannedSeconds : (large.seconds ?? 2);
    const frames = Math.floor(random() * Math.round(frameRate));
    // The others are SD, which keeps seeding quick, in every aspect ratio (aspect_ratios).
    const [sdWidth, sdHeight] = SD_FRAMES[(editorial ? editorialSd : creativeSd) % SD_FRAMES.length]!;
    if (large === undefined) {
      if (editorial) editorialSd += 1;
      else creativeSd += 1;
    }
    const monochrome = order % 5 === 4;
    const [width, height] = large?.size ?? [sdWidth, sdHeight];
    const created = event ? new Date(event.start.getTime() + between(random, 0.5, 9) * HOUR) : creativeDate(random);
    const record: Record<string, unknown> = {
      asset_type: 'video',
      id,
      title,
      caption: editorial ? editorialCaption(baseTitle, place, event, created, artist, collection, 'Video') : creativeCaption(random, theme, baseTitle),
      artist: artist.name,
      ...collectionFields(collection),
      // Rights-managed footage is sold rights-ready, the license model of video (license_models).
      ...(collection.license_model === 'rightsmanaged' ? rightsReadyFields(collection) : {}),
      call_for_image: false,
      city: place.city,
      state_province: place.state_province,
      country: place.country,
      color_type: monochrome ? 'black_and_white' : 'color',
      copyright: `© ${created.getUTCFullYear()} ${artist.name}`,
      date_created: isoSeconds(created),
      date_submitted: isoSeconds(new Date(created.getTime() + between(random, 1, 30) * DAY)),
      quality_rank: Math.floor(random() * 5),
      allowed_use: allowedUse(collection, {
        editorialUseOnly: !editorial && order % 6 === 5,
        // Footage without recognisable people or property needs no release; publicity footage has them.
        released: editorial ? order % 4 === 0 : order % 3 !== 2,
      }),
      keywords: [
        ...keywordsFor(random, theme, place, people, event, monochrome),
        ...factKeywords(order, { ages: 7, ethnicities: 3, compositions: 4, mood: false }),
        keyword(VIEWPOINT_KEYWORDS[order % VIEWPOINT_KEYWORDS.length]!, 'Viewpoint', 3),
        ...(order % 4 === 1 ? [keyword(TECHNIQUE_KEYWORDS[Math.floor(order / 4) % TECHNIQUE_KEYWORDS.length]!, 'ImageTechnique', 3)] : []),
      ],
      referral_destinations: [
        { site_name: 'stockroom', uri: `https://www.stockroom.example/videos/${slug(baseTitle)}/${id}` },
      ],
      // clip_length, aspect_ratio, orientation and download_sizes are read from the clip at ingest.
      era: '2020s',
      shot_speed: shotSpeed,
      mastered_to: `${originalSizeName(width, height)} H.264`,
      originally_shot_on: pick(random, CAMERAS),
    };
    if (collection.license_model !== 'rightsmanaged') record.product_types = assetProductTypes(collection, order);
    if (index % 7 === 4) record.embeddable = false;
    if (moderated !== undefined) record.nudity_scores = { ...MODERATION_SCORES };
    if (editorial) {
      record.editorial_segments = event ? eventSegments(event) : [...theme.segments];
      record.people = people;
      record.source = collection.name;
      // Raw footage and produced (edited) stories in turn (editorial_video_types).
      record.editorial_video_type = order % 2 === 0 ? 'raw' : 'produced';
      if (event) record.event_ids = [event.id];
      editorialCount += 1;
    } else {
      const signature = random() < 0.3 || collection.code === 'LUM';
      record.partner_collection = signature ? 'signature' : 'essentials';
      record.is_ai_editable = false;
      creativeCount += 1;
    }
    const drawnPalette = [...pick(random, theme.palettes)];
    const palette = monochrome ? [...MONOCHROME_PALETTE] : drawnPalette;
    const scene = (seed: number, colours: string[]): DemoImageRequest => ({
      seed,
      width: Math.round(width * PAN_MARGIN),
      height: Math.round(height * PAN_MARGIN),
      title,
      palette: colours,
    });
    assets.push({
      record,
      picture: scene(hashSeed('poster', index), palette),
      clip: {
        width,
        height,
        seconds: seconds + frames / Math.round(frameRate),
        frameRate,
        secondScene: scene(hashSeed('second scene', index), [...palette].reverse()),
      },
    });
  }
  return assets;
}

// ── pieces of records ───────────────────────────────────────────────────────

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function themeByKey(key: string): Theme {
  return THEMES.find((theme) => theme.key === key)!;
}

function collectionByCode(code: string): Collection {
  return COLLECTIONS.find((collection) => collection.code === code)!;
}

function creativeCollection(random: () => number, prestige: boolean): Collection {
  if (prestige) return collectionByCode('LUM');
  return collectionByCode(random() < 0.65 ? 'STK' : 'VIS');
}

function personName(random: () => number): string {
  return `${pick(random, FIRST_NAMES)} ${pick(random, LAST_NAMES)}`;
}

function peopleFor(random: () => number, event: PlannedEvent | undefined): string[] {
  const first = event && random() < 0.7 ? event.star : personName(random);
  if (random() < 0.3) {
    const second = personName(random);
    if (second !== first) return [first, second];
  }
  return [first];
}

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
}

function creativeTitle(random: () => number, theme: Theme, place: Place): string {
  return fill(pick(random, theme.creativeTitles), { city: place.city, time: pick(random, TIMES) });
}

function editorialTitle(random: () => number, theme: Theme, event: PlannedEvent | undefined, person: string, place: Place): string {
  if (!event) return `${person}, ${theme.role}, photographed in ${place.city}`;
  return fill(pick(random, theme.editorialTitles), { person, event: event.name });
}

function creativeCaption(random: () => number, theme: Theme, title: string): string {
  return `${title}. ${pick(random, theme.creativeCaptions)}`;
}

/** The wire-caption style: PLACE - DATE: what happens, where and when. (Photo by …) */
function editorialCaption(
  title: string,
  place: Place,
  event: PlannedEvent | undefined,
  when: Date,
  artist: Artist,
  collection: Collection,
  medium: 'Photo' | 'Video' = 'Photo',
): string {
  const month = MONTHS[when.getUTCMonth()]!;
  const day = when.getUTCDate();
  const venue = event ? ` at ${event.template.venue}` : '';
  const where = place.state_province === place.city ? `${place.city}, ${place.country}` : `${place.city}, ${place.state_province}`;
  return (
    `${place.city.toUpperCase()}, ${place.country.toUpperCase()} - ${month.toUpperCase()} ${day}: ${title}${venue} ` +
    `on ${month} ${day}, ${when.getUTCFullYear()} in ${where}. ` +
    `(${medium} by ${artist.name}/${collection.name})`
  );
}

/**
 * What an asset may be used for. `editorialUseOnly`: a creative asset that may be used
 * editorially only (an unreleased person, a trademark in view); `released` (default: creative
 * ones are, editorial ones are not): whether models and property are released.
 */
function allowedUse(collection: Collection, options: { editorialUseOnly?: boolean; released?: boolean } = {}): Record<string, unknown> {
  const released = options.released ?? collection.family === 'creative';
  if (collection.family === 'creative' && options.editorialUseOnly) {
    return {
      how_can_i_use_it: 'Available for editorial uses only: it shows an unreleased person or a trademark.',
      release_info: 'Not released. Editorial use only.',
      usage_restrictions: ['Editorial use only'],
    };
  }
  if (collection.family === 'creative') {
    return {
      how_can_i_use_it: 'Available for commercial and editorial uses under the licence terms.',
      release_info: released ? 'Model and property released' : 'No release required: no recognisable people or property',
      usage_restrictions: [],
    };
  }
  return {
    how_can_i_use_it: 'Available for editorial uses only: news, commentary and reporting.',
    release_info: released ? 'Model and property released. Editorial use only.' : 'Not released. Editorial use only.',
    usage_restrictions:
      collection.code === 'ENT'
        ? ['Editorial use only', 'Contact your account manager for commercial or promotional uses']
        : ['Editorial use only'],
  };
}

function keywordsFor(
  random: () => number,
  theme: Theme,
  place: Place,
  people: readonly string[],
  event: PlannedEvent | undefined,
  monochrome: boolean,
): Array<Record<string, unknown>> {
  const [main, ...rest] = theme.keywords;
  const chosen = [main!, ...shuffle(random, rest).slice(0, 4 + Math.floor(random() * 3))];
  const keywords: Array<Record<string, unknown>> = chosen.map((text, position) =>
    keyword(text, 'Concept', position === 0 ? 5 : position < 3 ? 4 : position < 5 ? 3 : 2),
  );
  for (const person of people) keywords.push(keyword(person, 'Person', 5));
  if (event) keywords.push(keyword(event.name, 'Event', 5));
  keywords.push({
    ...keyword(place.city, 'Location', 3),
    entity_uris: [`https://www.wikidata.org/wiki/${place.entity}`],
    entity_types: ['city'],
  });
  keywords.push(keyword(place.country, 'Location', 2));
  if (monochrome) keywords.push(keyword('black and white', 'ImageTechnique', 3));
  return keywords;
}

/**
 * The typed keywords of what an asset shows (see demo-data.ts): how many people, their ages and
 * ethnicities, its compositions and, for pictures, its mood. `order` is the asset's position
 * among those of its type and family; each goes on round the lists where the one before stopped,
 * `ages` values at a time, and so on.
 */
function factKeywords(
  order: number,
  counts: { ages: number; ethnicities: number; compositions: number; mood: boolean },
): Array<Record<string, unknown>> {
  const people = (['none', 'one', 'two', 'group'] as const)[order % 4]!;
  // Ages and ethnicities go round among the assets that show people: three in four.
  const withPeople = order - Math.floor((order + 3) / 4);
  const keywords = [keyword(NUMBER_OF_PEOPLE_KEYWORDS[people], 'NumberOfPeople', 3)];
  if (people !== 'none') {
    keywords.push(...around(AGE_KEYWORDS, withPeople, counts.ages).map((text) => keyword(text, 'Age', 2)));
    keywords.push(...around(ETHNICITY_KEYWORDS, withPeople, counts.ethnicities).map((text) => keyword(text, 'Ethnicity', 2)));
  }
  keywords.push(...around(COMPOSITION_KEYWORDS, order, counts.compositions).map((text) => keyword(text, 'Composition', 2)));
  if (counts.mood) keywords.push(keyword(MOOD_KEYWORDS[order % MOOD_KEYWORDS.length]!, 'Mood', 2));
  return keywords;
}

/** The `count` items of a list that the `round`th turn takes, going round it. */
function around<T>(items: readonly T[], round: number, count: number): T[] {
  return Array.from({ length: Math.min(count, items.length) }, (_, offset) => items[(round * count + offset) % items.length]!);
}

/**
 * The products an asset is sold under: its collection's, except that a few creative assets are
 * sold under subscriptions only (not for credits), a few editorial ones under one of the two
 * editorial products only, and some editorial pictures of the royalty-free wires in image packs
 * as well — so that download_product picks some assets, never all.
 */
function assetProductTypes(collection: Collection, order: number, editorialImage?: 'image'): string[] {
  const types = [...collection.product_types];
  if (collection.family === 'creative') return order % 8 === 6 ? types.filter((type) => type !== 'creditpack') : types;
  if (order % 7 === 3) return types.filter((type) => type !== 'editorialsubscription');
  if (order % 7 === 5) return types.filter((type) => type !== 'premiumaccess');
  if (editorialImage && collection.license_model === 'royaltyfree' && order % 3 === 0) types.push('imagepack');
  return types;
}

/** A rights-managed collection's footage: sold rights-ready, which credit packs do not license (src/licensing/licensing-policy.ts). */
function rightsReadyFields(collection: Collection): Record<string, unknown> {
  return { license_model: 'rightsready', product_types: collection.product_types.filter((type) => type !== 'creditpack') };
}

function keyword(text: string, type: string, relevance: number): Record<string, unknown> {
  const translations = KEYWORD_TRANSLATIONS[text];
  return translations ? { text, type, relevance, translations: { ...translations } } : { text, type, relevance };
}

/** A creative picture's date: somewhere from 2019 to mid-2025. */
function creativeDate(random: () => number): Date {
  const from = Date.UTC(2019, 0, 1);
  const to = Date.UTC(2025, 5, 30);
  return new Date(from + Math.floor(random() * ((to - from) / 60_000)) * 60_000);
}

function isoSeconds(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

function slug(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 80);
}



/** A seed per purpose and position (FNV-1a over both), so one asset's values never depend on another's. */
function hashSeed(purpose: string, index: number): number {
  let hash = 0x811c9dc5;
  for (const char of `${purpose}:${index}`) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function between(random: () => number, low: number, high: number): number {
  return low + (high - low) * random();
}

function shuffle<T>(random: () => number, items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** The fields a record takes from its collection. */
function collectionFields(collection: Collection) {
  return {
    asset_family: collection.family,
    collection_id: collection.id,
    collection_code: collection.code,
    collection_name: collection.name,
    license_model: collection.license_model,
    product_types: [...collection.product_types],
  };
}
