import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import {
  SIGNATURE_LENGTH,
  SIGNATURE_PARTS,
  SUMMARY_GROUP_OF,
  SUMMARY_LENGTH,
  computeVisualSignature,
  signatureDistance,
  signatureFromBase64,
  signatureToBase64,
} from '../../src/media/visual-signature.js';
import { landscapeImage, solidImage, stripedImage } from '../search/visual/visual-fixtures.js';

const dusk = { skyTop: '#1d2b64', skyBottom: '#f8a35b', sun: '#ffd36e', farHill: '#5b3f63', nearHill: '#2b2238' };
const meadow = { skyTop: '#7ec8f2', skyBottom: '#e6f4fb', sun: '#fff7c2', farHill: '#6aa84f', nearHill: '#38761d' };

function partSum(signature: Float32Array, part: keyof typeof SIGNATURE_PARTS): number {
  const { offset, length } = SIGNATURE_PARTS[part];
  return signature.subarray(offset, offset + length).reduce((sum, value) => sum + Math.abs(value), 0);
}

describe('computeVisualSignature', () => {
  it('rule: the same image gives the same signature', async () => {
    const image = await landscapeImage(dusk);
    const first = await computeVisualSignature(image);
    const again = await computeVisualSignature(Buffer.from(image));
    expect(first).toHaveLength(SIGNATURE_LENGTH);
    expect(Array.from(again)).toEqual(Array.from(first));
    expect(signatureDistance(first, again)).toBe(0);
  });

  it('rule: a resized, re-encoded copy is nearer to its original than to a different image', async () => {
    const original = await landscapeImage(dusk);
    const copy = await sharp(original).resize(300).jpeg({ quality: 60 }).toBuffer();
    const [originalSignature, copySignature, otherSignature] = await Promise.all(
      [original, copy, await landscapeImage(meadow)].map((image) => computeVisualSignature(image)),
    );
    const toCopy = signatureDistance(originalSignature!, copySignature!);
    expect(toCopy).toBeLessThan(signatureDistance(originalSignature!, otherSignature!));
    expect(toCopy).toBeLessThan(signatureDistance(copySignature!, otherSignature!));
    // Not just nearer: close to nothing, on a scale whose unrelated pictures sit around 2.
    expect(toCopy).toBeLessThan(0.15);
  });

  it('rule: a red image is nearer to an orange one than to a blue one', async () => {
    const [red, orange, blue] = await Promise.all(['#e02020', '#f08a1c', '#2040e0'].map(async (colour) => computeVisualSignature(await solidImage(colour))));
    expect(signatureDistance(red!, orange!)).toBeLessThan(signatureDistance(red!, blue!));
  });

  it('rule: a horizontal-stripes image is nearer to another horizontal-stripes image than to vertical stripes', async () => {
    const colours: [string, string] = ['#202020', '#f0f0f0'];
    const [horizontal, otherHorizontal, vertical] = await Promise.all(
      [stripedImage('horizontal', 10, colours), stripedImage('horizontal', 6, colours), stripedImage('vertical', 10, colours)].map(async (image) =>
        computeVisualSignature(await image),
      ),
    );
    // The vertical stripes are the first picture turned a quarter, so only orientation tells them apart.
    expect(signatureDistance(horizontal!, otherHorizontal!)).toBeLessThan(signatureDistance(horizontal!, vertical!));
  });

  it('rule: a signature is 118 floats, each part on its scale', async () => {
    const signature = await computeVisualSignature(await landscapeImage(meadow));
    expect(SIGNATURE_LENGTH).toBe(118);
    expect(signature.every((value) => Number.isFinite(value))).toBe(true);
    // The colour histogram sums to its weight; the other parts to at most theirs.
    expect(partSum(signature, 'colour')).toBeCloseTo(SIGNATURE_PARTS.colour.weight, 5);
    expect(partSum(signature, 'layout')).toBeLessThanOrEqual(SIGNATURE_PARTS.layout.weight + 1e-6);
    expect(partSum(signature, 'edges')).toBeLessThanOrEqual(SIGNATURE_PARTS.edges.weight + 1e-6);
  });

  it('rule: a flat image has no layout and no edges, only colour', async () => {
    const signature = await computeVisualSignature(await solidImage('#3366cc'));
    expect(partSum(signature, 'layout')).toBeCloseTo(0, 6);
    expect(partSum(signature, 'edges')).toBeCloseTo(0, 6);
    expect(partSum(signature, 'colour')).toBeCloseTo(1, 5);
  });

  it('rule: an EXIF-rotated photo has the signature of the picture it shows', async () => {
    const upright = await sharp(await landscapeImage(dusk)).jpeg({ quality: 95 }).toBuffer();
    // The same picture stored turned a quarter anticlockwise, with the tag that turns it back.
    const stored = await sharp(upright).rotate(-90).jpeg({ quality: 95 }).toBuffer();
    const tagged = await sharp(stored).withMetadata({ orientation: 6 }).jpeg({ quality: 95 }).toBuffer();
    const [uprightSignature, taggedSignature, storedSignature] = await Promise.all([upright, tagged, stored].map((image) => computeVisualSignature(image)));
    expect(signatureDistance(uprightSignature!, taggedSignature!)).toBeLessThan(signatureDistance(uprightSignature!, storedSignature!) / 4);
  });

  it('rule: an unreadable image is refused as such', async () => {
    await expect(computeVisualSignature(Buffer.from('not an image at all'))).rejects.toThrow(/^Unreadable image: /);
  });

  it('rule: the summary groups are 17 and cover colour and edges, never layout', () => {
    expect(SUMMARY_LENGTH).toBe(17);
    const { layout } = SIGNATURE_PARTS;
    SUMMARY_GROUP_OF.forEach((group, i) => {
      const inLayout = i >= layout.offset && i < layout.offset + layout.length;
      expect(group === -1).toBe(inLayout);
    });
  });
});

describe('signatureToBase64 / signatureFromBase64', () => {
  it('rule: a signature survives the base64 round trip bit for bit', async () => {
    const signature = await computeVisualSignature(await landscapeImage(dusk));
    const text = signatureToBase64(signature);
    expect(text).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    expect(JSON.parse(JSON.stringify({ text })).text).toBe(text);
    const back = signatureFromBase64(text);
    expect(back).toBeInstanceOf(Float32Array);
    expect(Array.from(back)).toEqual(Array.from(signature));
  });

  it('rule: base64 that is not a whole signature of finite numbers is refused', () => {
    const signature = new Float32Array(SIGNATURE_LENGTH).fill(0.25);
    const text = signatureToBase64(signature);
    expect(() => signatureFromBase64(text.slice(0, 40))).toThrow(RangeError);
    expect(() => signatureFromBase64(signatureToBase64(new Float32Array(SIGNATURE_LENGTH + 1)))).toThrow(/bytes/);
    expect(() => signatureFromBase64('not base64!')).toThrow(/base64/);
    const withNaN = signature.slice();
    withNaN[7] = Number.NaN;
    expect(() => signatureFromBase64(signatureToBase64(withNaN))).toThrow(/non-finite/);
  });
});
