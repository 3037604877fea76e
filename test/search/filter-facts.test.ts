import { describe, expect, it } from 'vitest';
import type { AssetRecord, StoredKeyword } from '../../src/catalog/catalog.records.js';
import { assetDocument, isEditorialUseOnly, isFullyReleased } from '../../src/search/search-documents.js';

/*
 * How the facts of the filters exclude_editorial_use_only, release_status, image_techniques,
 * viewpoints, editorial_video_types and entity_uris are read from a catalogue record.
 */

function keyword(text: string, type: string, entityUris: string[] = []): StoredKeyword {
  return { keyword_id: text, text, type, relevance: 3, entity_uris: entityUris, entity_types: [], translations: {} };
}

function record(assetType: 'image' | 'video', fields: Record<string, unknown>): AssetRecord {
  return { id: 'a1', asset_type: assetType, fields: { keywords: [], ...fields }, width: null, height: null, original: null, visual_signature: null };
}

describe('editorial use only', () => {
  it('is every editorial asset, and a creative one whose usage restrictions say so, however written', () => {
    expect(isEditorialUseOnly({ asset_family: 'editorial' })).toBe(true);
    for (const restriction of ['Editorial use only', 'EDITORIAL USE ONLY.', 'For editorial  use only', 'Editorial-use only!']) {
      expect(isEditorialUseOnly({ asset_family: 'creative', allowed_use: { usage_restrictions: ['No merchandising', restriction] } }), restriction).toBe(true);
    }
    expect(isEditorialUseOnly({ asset_family: 'creative', allowed_use: { usage_restrictions: ['No merchandising'] } })).toBe(false);
    expect(isEditorialUseOnly({ asset_family: 'creative', allowed_use: null })).toBe(false);
    expect(isEditorialUseOnly({ asset_family: 'creative' })).toBe(false);
  });
});

describe('fully released', () => {
  it('follows the ingest field when given, else a release_info saying every release is held', () => {
    expect(isFullyReleased({ fully_released: true, allowed_use: { release_info: 'Not released' } })).toBe(true);
    expect(isFullyReleased({ fully_released: false, allowed_use: { release_info: 'Model and property released' } })).toBe(false);
    expect(isFullyReleased({ allowed_use: { release_info: 'Model and property released' } })).toBe(true);
    expect(isFullyReleased({ allowed_use: { release_info: 'Fully released.' } })).toBe(true);
    for (const partial of ['Model released', 'Property released', 'Not released. Editorial use only.', '']) {
      expect(isFullyReleased({ allowed_use: { release_info: partial } }), partial).toBe(false);
    }
    expect(isFullyReleased({})).toBe(false);
  });
});

describe('the video filters’ attributes', () => {
  it('read techniques from the ingest field, shot_speed, color_type and ImageTechnique keywords; viewpoints from the field and Viewpoint keywords', () => {
    const document = assetDocument(
      record('video', {
        asset_family: 'editorial',
        editorial_video_type: 'raw',
        shot_speed: 'Real Time',
        color_type: 'black_and_white',
        image_techniques: ['animation'],
        viewpoints: ['tilt'],
        allowed_use: { release_info: 'Model and property released' },
        keywords: [
          keyword('Selective Focus', 'ImageTechnique'),
          keyword('Long Exposure', 'ImageTechnique'),
          keyword('POV', 'Viewpoint'),
          keyword('Directly Above', 'Viewpoint'),
          keyword('Eiffel Tower', 'Location', ['https://entities.example.org/Q243']),
        ],
      }),
    );
    expect([...document.keywords.image_technique!].sort()).toEqual(['animation', 'black_and_white', 'realtime', 'selective_focus']);
    // Values outside the filter's list (Directly Above, Long Exposure) are not kept.
    expect([...document.keywords.viewpoint!].sort()).toEqual(['point_of_view', 'tilt']);
    expect(document.keywords.editorial_video_type).toEqual(['raw']);
    expect(document.keywords.release_status).toEqual(['fully_released']);
    expect(document.keywords.editorial_use_only).toEqual(['true']);
    expect(document.keywords.entity_uri).toEqual(['https://entities.example.org/Q243']);
  });

  it('take keywords of type Technique, the shorter name, as ImageTechnique ones', () => {
    const document = assetDocument(record('video', { keywords: [keyword('Animation', 'Technique'), keyword('Selective focus', 'technique')] }));
    expect([...document.keywords.image_technique!].sort()).toEqual(['animation', 'selective_focus']);
  });

  it('read a keyword type the same however often it is met, and no type from an object’s own names', () => {
    // the types' attributes are remembered between documents, and "constructor" is no attribute
    for (let round = 0; round < 3; round++) {
      const document = assetDocument(record('video', { keywords: [keyword('Aerial view', 'View Point'), keyword('Odd', 'Constructor'), keyword('Odder', 'toString')] }));
      expect(document.keywords.viewpoint).toEqual(['aerial_view']);
      expect(Object.values(document.keywords).flat()).not.toContain('odd');
      expect(Object.values(document.keywords).flat()).not.toContain('odder');
    }
  });

  it('are a video’s only: an image carries none of them', () => {
    const document = assetDocument(
      record('image', { asset_family: 'creative', color_type: 'color', allowed_use: { release_info: 'Model and property released' } }),
    );
    for (const attribute of ['image_technique', 'viewpoint', 'editorial_video_type', 'release_status', 'editorial_use_only']) {
      expect(document.keywords[attribute], attribute).toEqual([]);
    }
  });
});
