import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/platform/seeded-random.js';
import { VisualIndex } from '../../../src/search/visual/visual-index.js';
import { SIGNATURE_LENGTH, computeVisualSignature, signatureDistance } from '../../../src/media/visual-signature.js';
import { randomSignature, solidImage } from './visual-fixtures.js';

/** An index of `count` random signatures with ids "a0", "a1", …, and the signatures by id. */
function randomIndex(count: number, seed = 1): { index: VisualIndex; signatures: Map<string, Float32Array>; random: () => number } {
  const random = seededRandom(seed);
  const index = new VisualIndex();
  const signatures = new Map<string, Float32Array>();
  for (let n = 0; n < count; n++) {
    const signature = randomSignature(random);
    index.upsert(`a${n}`, signature);
    signatures.set(`a${n}`, signature);
  }
  return { index, signatures, random };
}

/** The k nearest by sorting every distance: what nearest() must match. */
function bruteForce(signatures: Map<string, Float32Array>, query: Float32Array, k: number, keep: (id: string) => boolean = () => true) {
  return [...signatures]
    .filter(([id]) => keep(id))
    .map(([id, signature]) => ({ id, distance: signatureDistance(query, signature) }))
    .sort((a, b) => a.distance - b.distance || (a.id < b.id ? -1 : 1))
    .slice(0, k);
}

function idsOf(neighbours: Array<{ id: string }>): string[] {
  return neighbours.map(({ id }) => id);
}

describe('VisualIndex', () => {
  it('rule: nearest returns k results ordered by distance', async () => {
    const index = new VisualIndex();
    const colours = ['#e02020', '#f08a1c', '#f0d020', '#30a040', '#2040e0', '#8030c0', '#808080'];
    const signatures = await Promise.all(colours.map(async (colour) => computeVisualSignature(await solidImage(colour))));
    colours.forEach((colour, n) => index.upsert(colour, signatures[n]!));
    const query = await computeVisualSignature(await solidImage('#e8301c'));

    const found = index.nearest(query, 3);
    expect(found).toHaveLength(3);
    expect(found[0]!.id).toBe('#e02020');
    expect(found[1]!.id).toBe('#f08a1c');
    for (let n = 1; n < found.length; n++) expect(found[n]!.distance).toBeGreaterThanOrEqual(found[n - 1]!.distance);
    found.forEach(({ id, distance }) => expect(distance).toBeCloseTo(signatureDistance(query, signatures[colours.indexOf(id)]!), 9));
    // Never more than the index holds; nothing for k below 1.
    expect(index.nearest(query, 50)).toHaveLength(colours.length);
    expect(index.nearest(query, 0)).toEqual([]);
  });

  it('rule: nearest is exact: the same k as sorting every distance', () => {
    const { index, signatures, random } = randomIndex(5000);
    for (let q = 0; q < 5; q++) {
      const query = randomSignature(random);
      for (const k of [1, 10, 100]) {
        const found = index.nearest(query, k);
        const expected = bruteForce(signatures, query, k);
        expect(idsOf(found)).toEqual(idsOf(expected));
        found.forEach(({ distance }, n) => expect(distance).toBeCloseTo(expected[n]!.distance, 9));
      }
    }
    // A query equal to a stored signature finds it first, at distance 0.
    const stored = signatures.get('a1234')!;
    expect(index.nearest(stored, 1)).toEqual([{ id: 'a1234', distance: 0 }]);
  });

  it('rule: nearest honours exclude', () => {
    const { index, signatures } = randomIndex(2000, 2);
    const query = signatures.get('a7')!;
    const nearest = idsOf(index.nearest(query, 5));
    expect(nearest[0]).toBe('a7');
    const exclude = new Set([nearest[0]!, nearest[2]!]);
    const found = index.nearest(query, 5, { exclude });
    expect(found).toHaveLength(5);
    expect(idsOf(found).some((id) => exclude.has(id))).toBe(false);
    expect(idsOf(found)).toEqual(idsOf(bruteForce(signatures, query, 5, (id) => !exclude.has(id))));
  });

  it('rule: nearest honours filter', () => {
    const { index, signatures, random } = randomIndex(2000, 3);
    const query = randomSignature(random);
    const even = (id: string) => Number(id.slice(1)) % 2 === 0;
    const found = index.nearest(query, 20, { filter: even });
    expect(found).toHaveLength(20);
    expect(found.every(({ id }) => even(id))).toBe(true);
    expect(idsOf(found)).toEqual(idsOf(bruteForce(signatures, query, 20, even)));
    // With both, an id must pass both.
    const exclude = new Set([found[0]!.id]);
    expect(idsOf(index.nearest(query, 20, { filter: even, exclude }))).toEqual(
      idsOf(bruteForce(signatures, query, 20, (id) => even(id) && !exclude.has(id))),
    );
    expect(index.nearest(query, 5, { filter: () => false })).toEqual([]);
  });

  it('rule: upsert replaces', () => {
    const { index, signatures, random } = randomIndex(100, 4);
    const replacement = randomSignature(random);
    index.upsert('a42', replacement);
    expect(index.size).toBe(100);
    expect(index.nearest(replacement, 1)).toEqual([{ id: 'a42', distance: 0 }]);
    // The old signature no longer finds a42 at distance 0.
    const old = signatures.get('a42')!;
    const found = index.nearest(old, 100).find(({ id }) => id === 'a42')!;
    expect(found.distance).toBeCloseTo(signatureDistance(old, replacement), 9);
    expect(found.distance).toBeGreaterThan(0);
    // The index keeps its own copy: changing the caller's array later changes nothing.
    replacement.fill(0);
    expect(index.nearest(signatures.get('a43')!, 1)).toEqual([{ id: 'a43', distance: 0 }]);
    expect(index.nearest(replacement, 100).find(({ id }) => id === 'a42')!.distance).toBeGreaterThan(0);
  });

  it('rule: remove removes', () => {
    // More than the 1024 slots an index starts with, so removal is tested across a growth.
    const { index, signatures } = randomIndex(1500, 5);
    const removed = ['a0', 'a1100', 'a1499', 'a17'];
    for (const id of removed) index.remove(id);
    index.remove('a1100');
    index.remove('never-there');
    expect(index.size).toBe(1500 - removed.length);
    for (const id of removed) {
      expect(index.has(id)).toBe(false);
      expect(idsOf(index.nearest(signatures.get(id)!, 10))).not.toContain(id);
    }
    // Every other signature is still where its id says (the last slot moved into each hole).
    for (const [id, signature] of signatures) {
      if (removed.includes(id)) continue;
      expect(index.nearest(signature, 1)).toEqual([{ id, distance: 0 }]);
    }
    // And a removed id can come back.
    index.upsert('a17', signatures.get('a17')!);
    expect(index.nearest(signatures.get('a17')!, 1)).toEqual([{ id: 'a17', distance: 0 }]);
    expect(index.size).toBe(1500 - removed.length + 1);
  });

  it('rule: ties are broken by id, whatever the order of insertion', () => {
    const signature = randomSignature(seededRandom(6));
    const forwards = new VisualIndex();
    const backwards = new VisualIndex();
    const ids = ['d', 'b', 'e', 'a', 'c'];
    ids.forEach((id) => forwards.upsert(id, signature));
    [...ids].reverse().forEach((id) => backwards.upsert(id, signature));
    expect(idsOf(forwards.nearest(signature, 3))).toEqual(['a', 'b', 'c']);
    expect(idsOf(backwards.nearest(signature, 3))).toEqual(['a', 'b', 'c']);
  });

  it('rule: a signature of the wrong length or with a non-finite number is refused', () => {
    const index = new VisualIndex();
    expect(() => index.upsert('x', new Float32Array(SIGNATURE_LENGTH - 1))).toThrow(RangeError);
    expect(() => index.nearest(new Float32Array(3), 1)).toThrow(RangeError);
    const withNaN = new Float32Array(SIGNATURE_LENGTH);
    withNaN[5] = Number.NaN;
    expect(() => index.upsert('x', withNaN)).toThrow(/finite/);
    expect(index.size).toBe(0);
  });
});
