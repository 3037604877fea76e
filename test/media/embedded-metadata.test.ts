import fs from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { describe, expect, it, onTestFinished } from 'vitest';
import { readEmbeddedMetadata, readVideoMetadata } from '../../src/media/embedded-metadata.js';
import { IPTC, jpegWithMetadata } from './embedded-metadata-fixtures.js';
import { scratchDir, tools } from './video/video-fixtures.js';

describe('readEmbeddedMetadata', () => {
  it('reads every fact from IPTC alone, UTF-8 text included, and turns the country code into the English name', async () => {
    const file = await jpegWithMetadata({
      iptc: [
        [IPTC.objectName, 'Harbour at dawn'],
        [IPTC.caption, 'Fishing boats leave Île-de-Sein before sunrise.'],
        [IPTC.keywords, 'harbour'],
        [IPTC.keywords, 'fishing boat'],
        [IPTC.byline, 'Maëlle Tanguy'],
        [IPTC.copyright, '© 2021 Maëlle Tanguy'],
        [IPTC.credit, 'Tanguy / Stockroom'],
        [IPTC.dateCreated, '20210504'],
        [IPTC.timeCreated, '061500+0200'],
        [IPTC.city, 'Île-de-Sein'],
        [IPTC.state, 'Bretagne'],
        [IPTC.country, 'Frankreich'],
        [IPTC.countryCode, 'FRA'],
      ],
    });
    expect(await readEmbeddedMetadata(file)).toEqual({
      title: 'Harbour at dawn',
      caption: 'Fishing boats leave Île-de-Sein before sunrise.',
      keywords: ['harbour', 'fishing boat'],
      artist: 'Maëlle Tanguy',
      copyright: '© 2021 Maëlle Tanguy',
      credit_line: 'Tanguy / Stockroom',
      date_created: '2021-05-04T06:15:00+02:00',
      city: 'Île-de-Sein',
      state_province: 'Bretagne',
      country: 'France',
    });
  });

  it('reads every fact from XMP alone', async () => {
    const file = await jpegWithMetadata({
      xmp: {
        title: 'Market street',
        description: 'Stalls in the old town & a tram',
        subjects: ['market', 'tram', 'Market'],
        creator: 'Jonas Brandt',
        rights: 'CC BY 4.0 Jonas Brandt',
        credit: 'Brandt Photo',
        dateCreated: '2019-10-12T09:30:00-04:00',
        city: 'Québec',
        state: 'Québec',
        country: 'Canada',
      },
    });
    expect(await readEmbeddedMetadata(file)).toEqual({
      title: 'Market street',
      caption: 'Stalls in the old town & a tram',
      // The same keyword twice (in another case) is one keyword.
      keywords: ['market', 'tram'],
      artist: 'Jonas Brandt',
      copyright: 'CC BY 4.0 Jonas Brandt',
      credit_line: 'Brandt Photo',
      date_created: '2019-10-12T09:30:00-04:00',
      city: 'Québec',
      state_province: 'Québec',
      country: 'Canada',
    });
  });

  it('reads what EXIF has: the description, the artist, the copyright and the date taken', async () => {
    const file = await jpegWithMetadata({
      exif: { ImageDescription: 'A red kite over the ridge', Artist: 'Ola Nordmann', Copyright: 'Ola Nordmann 2018' },
    });
    const read = await readEmbeddedMetadata(file);
    expect(read).toEqual({ caption: 'A red kite over the ridge', artist: 'Ola Nordmann', copyright: 'Ola Nordmann 2018' });
  });

  it('takes XMP over IPTC over EXIF where several say the same fact, and joins their keywords', async () => {
    const file = await jpegWithMetadata({
      exif: { ImageDescription: 'exif caption', Artist: 'Exif Artist', Copyright: 'exif copyright' },
      iptc: [
        [IPTC.objectName, 'iptc title'],
        [IPTC.caption, 'iptc caption'],
        [IPTC.byline, 'Iptc Byline'],
        [IPTC.keywords, 'iptc-only'],
        [IPTC.keywords, 'shared'],
        [IPTC.city, 'Iptc City'],
      ],
      xmp: { title: 'xmp title', creator: 'Xmp Creator', subjects: ['shared', 'xmp-only'], countryCode: 'NZ' },
    });
    const read = await readEmbeddedMetadata(file);
    expect(read.title).toBe('xmp title');
    expect(read.caption).toBe('iptc caption');
    expect(read.artist).toBe('Xmp Creator');
    expect(read.copyright).toBe('exif copyright');
    expect(read.city).toBe('Iptc City');
    expect(read.country).toBe('New Zealand');
    expect(read.keywords).toEqual(['shared', 'xmp-only', 'iptc-only']);
  });

  it('says nothing for a picture without metadata, a PNG, or bytes that are no picture', async () => {
    const plain = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#123456' } }).jpeg().toBuffer();
    const png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#123456' } }).png().toBuffer();
    expect(await readEmbeddedMetadata(plain)).toEqual({});
    expect(await readEmbeddedMetadata(png)).toEqual({});
    expect(await readEmbeddedMetadata(Buffer.from('not a picture at all'))).toEqual({});
  });

  it('leaves out an IPTC date that is no date, and keeps a country name it cannot place as written', async () => {
    const file = await jpegWithMetadata({ iptc: [[IPTC.dateCreated, '20210000'], [IPTC.country, 'Atlantis']] });
    expect(await readEmbeddedMetadata(file)).toEqual({ country: 'Atlantis' });
  });
});

describe('readVideoMetadata', () => {
  it("reads a video container's tags: title, comment, artist, copyright, keywords and date; none from a file without them or no video", async () => {
    const dir = scratchDir();
    onTestFinished(() => fs.rmSync(dir, { recursive: true, force: true }));
    const tagged = path.join(dir, 'tagged.mp4');
    const plain = path.join(dir, 'plain.mp4');
    const source = ['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=s=160x90:r=25:d=1', '-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'];
    await tools.ffmpeg([...source, plain], { timeoutMs: 60_000 });
    const tags = { title: 'Harbour at dusk', artist: 'Vid Maker', comment: 'Boats come in', copyright: '© Vid Maker', keywords: 'boat, harbour, Boat', date: '2023-06-01' };
    await tools.ffmpeg([...source, ...Object.entries(tags).flatMap(([name, value]) => ['-metadata', `${name}=${value}`]), tagged], { timeoutMs: 60_000 });
    expect(await readVideoMetadata(tools, tagged)).toEqual({
      title: 'Harbour at dusk',
      caption: 'Boats come in',
      artist: 'Vid Maker',
      copyright: '© Vid Maker',
      keywords: ['boat', 'harbour'],
      date_created: '2023-06-01',
    });
    expect(await readVideoMetadata(tools, plain)).toEqual({});
    const notVideo = path.join(dir, 'notes.mp4');
    fs.writeFileSync(notVideo, 'not a video');
    expect(await readVideoMetadata(tools, notVideo)).toEqual({});
  }, 60_000);
});

