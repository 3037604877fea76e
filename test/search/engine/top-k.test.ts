import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/platform/seeded-random.js';
import { PackedStrings } from '../../../src/search/engine/packed-strings.js';
import { selectTop, type Placement } from '../../../src/search/engine/top-k.js';

/*
 * selectTop with a placement (best_match: score, then place) against a plain sort of every
 * candidate, on scores drawn from few values (many ties, at the bar and above it) and from
 * many, with pages small (insertion over a shortlist) and large (a heap).
 */

function placementOf(size: number, random: () => number): Placement {
  const order = Uint32Array.from({ length: size }, (_, i) => i);
  for (let i = size - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const places = new Uint32Array(size);
  for (let i = 0; i < size; i++) places[order[i]!] = i;
  return { places, order };
}

function expected(ordinals: Uint32Array, scores: Float64Array, count: number, k: number, places: Uint32Array): number[] {
  const positions = Array.from({ length: count }, (_, c) => c);
  positions.sort((a, b) => scores[b]! - scores[a]! || places[ordinals[a]!]! - places[ordinals[b]!]!);
  return positions.slice(0, k).map((c) => ordinals[c]!);
}

function selected(ordinals: Uint32Array, scores: Float64Array, count: number, k: number, placement: Placement): number[] {
  const ids = PackedStrings.from(Array.from({ length: placement.places.length }, (_, i) => `id-${i}`));
  return Array.from(selectTop(ordinals, count, k, scores, [], ids, placement));
}

describe('selectTop by place', () => {
  const documents = 5_000;
  const random = seededRandom(0x70b);
  const placement = placementOf(documents, random);

  for (const distinct of [1, 3, 40, 100_000]) {
    for (const count of [1, 29, 30, 31, 126, 1_000]) {
      it(`orders by score then place: ${count} candidates, scores of ${distinct} values`, () => {
        const ordinals = Uint32Array.from(new Set(Array.from({ length: count }, () => Math.floor(random() * documents)))).sort();
        const listed = ordinals.length;
        const scores = Float64Array.from({ length: listed }, () => 1 + Math.floor(random() * distinct) / 7);
        for (const k of [1, 2, 10, 30, 64, 65, 200, 1_500]) {
          expect(selected(ordinals, scores, listed, k, placement), `k ${k}`).toEqual(expected(ordinals, scores, listed, k, placement.places));
        }
      });
    }
  }

  it('keeps a key that differs from the bar in the last bits above it', () => {
    const ordinals = Uint32Array.from({ length: 100 }, (_, i) => i);
    const scores = Float64Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 1 : 1 + Number.EPSILON));
    expect(selected(ordinals, scores, 100, 60, placement)).toEqual(expected(ordinals, scores, 100, 60, placement.places));
  });

  it('copes with a spread too wide for the histogram', () => {
    const ordinals = Uint32Array.from({ length: 50 }, (_, i) => 10 * i);
    const scores = Float64Array.from({ length: 50 }, (_, i) => (i === 7 ? Number.MAX_VALUE : i === 9 ? -Number.MAX_VALUE : i));
    expect(selected(ordinals, scores, 50, 20, placement)).toEqual(expected(ordinals, scores, 50, 20, placement.places));
  });
});
