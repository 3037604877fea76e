/*
 * Transparent sources (a PNG with alpha) for object removal and extend. Their colours are
 * matched put on mid grey, since what a fully transparent pixel's colour channels hold means
 * nothing (often black, sometimes a leftover of an editor), while their outline, against grey,
 * is structure the fill should run on. Each new pixel takes the alpha of the pixel its colour
 * was copied from (fill-operations.ts), and its colour is taken back off the grey by that alpha;
 * the pixels the operation does not change are the source's own, colour and alpha exactly.
 */
import sharp from 'sharp';
import { EngineFailedError, type EngineImage } from '../engine.js';
import { decodeRgb, emptyRaster, MAX_PIXELS, type Raster } from './raster.js';

/** The grey transparent parts are put on while the fill matches patches. */
const MATTE = 128;
/** Below this alpha (of 1) a pixel's colour cannot be taken back off the grey steadily: it keeps the grey-matted one. */
const STEADY_ALPHA = 0.05;

export interface DecodedSource {
  /** RGB: the picture itself when it is opaque, else put on mid grey. */
  picture: Raster;
  /** When some pixel is not opaque: the alpha (one byte a pixel) and the source's own RGBA. */
  transparency?: { alpha: Uint8Array; original: Raster } | undefined;
}

/** The source as the fill works on it: RGB, and its transparency kept beside it when it has any. */
export async function decodeSource(image: EngineImage, what = 'source'): Promise<DecodedSource> {
  let rgba: Raster;
  try {
    const { hasAlpha } = await sharp(image.data, { limitInputPixels: MAX_PIXELS }).metadata();
    if (!hasAlpha) return { picture: await decodeRgb(image, what) };
    const { data, info } = await sharp(image.data, { limitInputPixels: MAX_PIXELS }).rotate().toColourspace('srgb').ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) throw new Error(`expected 4 channels with alpha, got ${info.channels}`);
    rgba = { width: info.width, height: info.height, channels: 4, data: new Uint8Array(data.buffer, data.byteOffset, data.length) };
  } catch (error) {
    if (error instanceof EngineFailedError) throw error;
    throw new EngineFailedError(`the ${what} is not a picture the engine can read: ${error instanceof Error ? error.message : String(error)}`);
  }
  const size = rgba.width * rgba.height;
  const alpha = new Uint8Array(size);
  let opaque = true;
  for (let i = 0; i < size; i++) {
    alpha[i] = rgba.data[i * 4 + 3]!;
    if (alpha[i] !== 255) opaque = false;
  }
  if (opaque) return { picture: await decodeRgb(image, what) };
  const picture = emptyRaster(rgba.width, rgba.height, 3);
  for (let i = 0; i < size; i++) {
    const a = alpha[i]! / 255;
    for (let c = 0; c < 3; c++) picture.data[i * 3 + c] = Math.round(rgba.data[i * 4 + c]! * a + MATTE * (1 - a));
  }
  return { picture, transparency: { alpha, original: rgba } };
}

/**
 * The RGBA result: where `changed` is 1, the filled colour taken back off the grey by the filled
 * alpha; elsewhere the source's own pixel, which sits at (`left`, `top`) of the result (extend
 * places the source inside larger margins).
 */
export function withTransparency(filled: Raster, alpha: Uint8Array, changed: Uint8Array, original: Raster, left = 0, top = 0): Raster {
  const { width, height } = filled;
  const out = emptyRaster(width, height, 4);
  const clamped = new Uint8ClampedArray(out.data.buffer, out.data.byteOffset, out.data.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const p = y * width + x;
      if (!changed[p]) {
        const from = ((y - top) * original.width + (x - left)) * 4;
        out.data.set(original.data.subarray(from, from + 4), p * 4);
        continue;
      }
      const a = alpha[p]! / 255;
      for (let c = 0; c < 3; c++) {
        const matted = filled.data[p * 3 + c]!;
        clamped[p * 4 + c] = a >= STEADY_ALPHA ? Math.round((matted - MATTE * (1 - a)) / a) : matted;
      }
      out.data[p * 4 + 3] = alpha[p]!;
    }
  }
  return out;
}
