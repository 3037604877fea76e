import { describe, expect, it } from 'vitest';
import { SYNTHETIC_SCHEMA, SYNTHETIC_VOCABULARY_SIZE, syntheticDocuments, syntheticVocabulary } from '../../bench/fixtures/synthetic-documents.js';
import { tokenize } from '../../src/search/engine/analyzer.js';

describe('synthetic documents', () => {
  const docs = [...syntheticDocuments(2_000, 11)];

  it('are deterministic for a count and seed, and a longer run starts with a shorter one', () => {
    expect([...syntheticDocuments(50, 11)]).toEqual(docs.slice(0, 50));
    expect([...syntheticDocuments(50, 12)]).not.toEqual(docs.slice(0, 50));
  });

  it('fill the schema: title 5-10 words, caption 15-30, 5-20 keywords, every attribute and number', () => {
    for (const item of docs) {
      expect(tokenize(item.text['title'] as string).length).toBeGreaterThanOrEqual(5);
      expect(tokenize(item.text['title'] as string).length).toBeLessThanOrEqual(10);
      expect(tokenize(item.text['caption'] as string).length).toBeGreaterThanOrEqual(15);
      expect(tokenize(item.text['caption'] as string).length).toBeLessThanOrEqual(30);
      const keywords = item.text['keywords'] as string[];
      expect(keywords.length).toBeGreaterThanOrEqual(5);
      expect(keywords.length).toBeLessThanOrEqual(20);
      for (const attribute of SYNTHETIC_SCHEMA.keywordAttributes) expect(item.keywords[attribute]).toBeDefined();
      expect(item.numbers['quality']).toBeGreaterThanOrEqual(0);
      expect(item.numbers['quality']).toBeLessThanOrEqual(4);
      expect(item.numbers['popularity']).toBeGreaterThanOrEqual(0);
      expect(Number.isFinite(item.numbers['date'])).toBe(true);
    }
  });

  it('draw words with a Zipf law from a vocabulary of ~50k made-up words', () => {
    const vocabulary = syntheticVocabulary();
    expect(vocabulary).toHaveLength(SYNTHETIC_VOCABULARY_SIZE);
    expect(new Set(vocabulary).size).toBe(SYNTHETIC_VOCABULARY_SIZE);
    const counts = new Map<string, number>();
    for (const item of docs) for (const token of tokenize(item.text['caption'] as string)) counts.set(token, (counts.get(token) ?? 0) + 1);
    const top = counts.get(vocabulary[0]!) ?? 0;
    const tenth = counts.get(vocabulary[9]!) ?? 0;
    // P(rank r) ∝ 1 / r: the first word about ten times as frequent as the tenth
    expect(top / tenth).toBeGreaterThan(6);
    expect(top / tenth).toBeLessThan(15);
  });

  it('spread attributes like a stock catalogue', () => {
    const distinct = (attribute: string): number => new Set(docs.flatMap((item) => item.keywords[attribute] ?? [])).size;
    expect(distinct('collection_code')).toBeLessThanOrEqual(40);
    expect(distinct('artist')).toBeGreaterThan(300);
    expect(distinct('location')).toBeGreaterThan(100);
    expect(distinct('orientation')).toBeLessThanOrEqual(5);
    const editorial = docs.filter((item) => item.keywords['asset_family']![0] === 'editorial');
    expect(editorial.length / docs.length).toBeGreaterThan(0.2);
    expect(editorial.every((item) => item.keywords['event_id']!.length === 1)).toBe(true);
  });
});
