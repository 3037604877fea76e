import { createHash } from 'node:crypto';
import sharp from 'sharp';
import type { Services } from '../../src/app.js';
import type { AssetInput } from '../../src/catalog/catalog.records.js';
import { downloadSizesFor, orientationOf, probeImage } from '../../src/media/image-probe.js';

/** A real JPEG of the given size, made on the spot. */
export function makeJpeg(width: number, height: number, color = '#3a6ea5'): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: color } }).jpeg({ quality: 80 }).toBuffer();
}

/** Every image_detail field of the spec, with believable values. */
export function fullImageFields(id: string): Record<string, unknown> {
  return {
    allowed_use: { how_can_i_use_it: 'Available for editorial uses.', release_info: 'Not released.', usage_restrictions: ['No merchandising'] },
    alternative_ids: [{ Key: 'archive', Value: `A-${id}` }],
    artist: 'Ada Lens',
    artist_title: 'Staff Photographer',
    asset_family: 'editorial',
    call_for_image: false,
    caption: `Caption of ${id}`,
    city: 'Lisbon',
    collection_code: 'NWS',
    collection_id: 7,
    collection_name: 'News Wire',
    color_type: 'color',
    copyright: '2024 Ada Lens',
    country: 'Portugal',
    credit_line: 'Ada Lens / News Wire',
    date_camera_shot: '2024-05-01T10:00:00Z',
    date_created: '2024-05-01T00:00:00Z',
    date_submitted: '2024-05-02T00:00:00Z',
    editorial_segments: ['news'],
    editorial_source: { id: 12, name: 'News Wire' },
    entity_details: [{ entity: 'Lisbon', kind: 'place' }],
    event_ids: [900001],
    graphical_style: 'Photography',
    keywords: [
      { text: 'harbour', type: 'Concept', relevance: 5, translations: { de: 'Hafen', fr: 'port' } },
      { text: 'boat', type: 'Object', relevance: 3, entity_uris: ['https://example.org/boat'], entity_types: ['thing'] },
    ],
    license_model: 'rightsmanaged',
    links: [{ rel: 'related', uri: 'https://example.org/story' }],
    orientation: 'Horizontal',
    people: ['Jane Doe'],
    prestige: true,
    product_types: ['editorialsubscription', 'premiumaccess'],
    quality_rank: 2,
    referral_destinations: [{ site_name: 'partner', uri: 'https://example.org/photo' }],
    state_province: 'Lisboa',
    title: `Title of ${id}`,
    partner_collection: 'signature',
    partner_licenses: [{ license_type: 'Standard', credits: 10 }],
    download_product: 'premiumaccess',
    is_ai_editable: false,
    object_name: `object-${id}`,
  };
}

/** Stores an image with a real original file, the way ingest does. */
export async function addImage(
  services: Services,
  id: string,
  options: { width?: number; height?: number; fields?: Record<string, unknown> } = {},
): Promise<void> {
  const file = await makeJpeg(options.width ?? 1200, options.height ?? 800);
  const probed = await probeImage(file);
  const key = `originals/${createHash('sha256').update(file).digest('hex')}.jpg`;
  await services.blobs.put(key, file);
  const input: AssetInput = {
    asset_type: 'image',
    id,
    fields: {
      ...fullImageFields(id),
      orientation: orientationOf(probed.width, probed.height),
      download_sizes: downloadSizesFor(probed),
      ...options.fields,
    },
    original: { key, ...probed },
  };
  await services.catalog.upsertAsset(input);
}
