import sharp from 'sharp';
import { EngineFailedError, type EngineImage } from '../engine.js';

/** Pixels the engine works on: 8-bit, interleaved, `channels` per pixel, rows top to bottom. */
export interface Raster {
  width: number;
  height: number;
  channels: 1 | 3 | 4;
  data: Uint8Array;
}

/** Largest picture the engine takes: about 50 megapixels, as the upload limits allow. */
export const MAX_PIXELS = 50_000_000;

export function emptyRaster(width: number, height: number, channels: Raster['channels']): Raster {
  return { width, height, channels, data: new Uint8Array(width * height * channels) };
}

async function decode(image: EngineImage | Buffer, channels: 1 | 3, what: string, background: string): Promise<Raster> {
  try {
    let pipeline = sharp(Buffer.isBuffer(image) ? image : image.data, { limitInputPixels: MAX_PIXELS })
      .rotate()
      .flatten({ background });
    pipeline = channels === 1 ? pipeline.grayscale() : pipeline.toColourspace('srgb');
    const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
    return { width: info.width, height: info.height, channels: info.channels as 1 | 3, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
  } catch (error) {
    throw new EngineFailedError(`the ${what} is not a picture the engine can read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** An RGB raster of an encoded picture, turned as its EXIF orientation says, transparency over white. */
export function decodeRgb(image: EngineImage | Buffer, what = 'source'): Promise<Raster> {
  return decode(image, 3, what, '#ffffff');
}

/**
 * A mask of 0 (keep) and 1 (act) the size of `width`×`height`: white (≥ 128) acts. A mask of
 * another size is stretched to the source, as a person drawing on a preview would mean. A
 * transparent part of a mask is not painted (put on black): strokes drawn on a transparent
 * canvas mark only themselves.
 */
export async function decodeMask(image: EngineImage | Buffer, width: number, height: number): Promise<Uint8Array> {
  let mask = await decode(image, 1, 'mask', '#000000');
  if (mask.width !== width || mask.height !== height) mask = await resize(mask, width, height, 'nearest');
  const act = new Uint8Array(width * height);
  for (let i = 0; i < act.length; i++) act[i] = mask.data[i]! >= 128 ? 1 : 0;
  return act;
}

export async function resize(raster: Raster, width: number, height: number, kernel: 'nearest' | 'cubic' | 'lanczos3' = 'cubic'): Promise<Raster> {
  let pipeline = sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: raster.channels } }).resize(width, height, { fit: 'fill', kernel });
  // sharp hands back one channel as three unless told the picture is grey.
  if (raster.channels === 1) pipeline = pipeline.toColourspace('b-w');
  const { data, info } = await pipeline
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== raster.channels) throw new Error(`resizing changed ${raster.channels} channels into ${info.channels}`);
  return { width: info.width, height: info.height, channels: raster.channels, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
}

export function crop(raster: Raster, left: number, top: number, width: number, height: number): Raster {
  const out = emptyRaster(width, height, raster.channels);
  const rowBytes = width * raster.channels;
  for (let y = 0; y < height; y++) {
    const from = ((top + y) * raster.width + left) * raster.channels;
    out.data.set(raster.data.subarray(from, from + rowBytes), y * rowBytes);
  }
  return out;
}

export async function encodePng(raster: Raster): Promise<Buffer> {
  return sharp(raster.data, { raw: { width: raster.width, height: raster.height, channels: raster.channels } })
    .png({ compressionLevel: 6 })
    .toBuffer();
}

/** A 0/1 mask as a one-channel raster of 0 and 255, for resizing and pictures. */
export function maskRaster(mask: Uint8Array, width: number, height: number): Raster {
  const data = new Uint8Array(mask.length);
  for (let i = 0; i < mask.length; i++) data[i] = mask[i] ? 255 : 0;
  return { width, height, channels: 1, data };
}
