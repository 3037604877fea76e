import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../../src/platform/seeded-random.js';
import { decodeLatin1 } from '../../../src/search/engine/latin1-decode.js';
import { PackedStrings } from '../../../src/search/engine/packed-strings.js';
import { SnapshotReader, SnapshotWriter } from '../../../src/search/engine/snapshot-format.js';
import { hashString, idOrderKey } from '../../../src/search/engine/typed-arrays.js';

/** Strings of every kind the table keeps: ASCII, Latin-1 past ASCII, past Latin-1 (kept aside), surrogate pairs, empty, prefixes of each other. */
const SAMPLES = ['asset-1', 'asset-10', 'asset-2', '', 'café', 'caff', 'ÿÿ', 'Ā', '日本', '日', 'a日', 'a', 'ab', '😀', '\u{ff}a', 'zebra', 'A', '0'];

function randomStrings(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const alphabet = ['a', 'b', 'Z', '0', 'é', 'ÿ', '\u0100', '日', '😀', '-'];
  return Array.from({ length: count }, () => {
    const length = Math.floor(random() * 6);
    let text = '';
    for (let k = 0; k < length; k++) text += alphabet[Math.floor(random() * alphabet.length)]!;
    return text;
  });
}

describe('packed strings', () => {
  it('give back every string appended, Latin-1 or not', () => {
    const packed = PackedStrings.from(SAMPLES);
    expect(packed.length).toBe(SAMPLES.length);
    SAMPLES.forEach((text, i) => expect(packed.get(i)).toBe(text));
  });

  it('tell equality with a key without making a string, a key past Latin-1 included', () => {
    const packed = PackedStrings.from(SAMPLES);
    SAMPLES.forEach((text, i) => {
      for (const key of SAMPLES) expect(packed.equals(i, key)).toBe(text === key);
      SAMPLES.forEach((other, j) => expect(packed.entriesEqual(i, j)).toBe(text === other));
    });
  });

  it("order entries as JavaScript's < orders the strings (UTF-16 code units)", () => {
    const strings = [...SAMPLES, ...randomStrings(300, 5)];
    const packed = PackedStrings.from(strings);
    const misordered: string[] = [];
    for (let i = 0; i < strings.length; i++) {
      for (let j = 0; j < strings.length; j++) {
        const a = strings[i]!;
        const b = strings[j]!;
        if (Math.sign(packed.compare(i, j)) !== (a < b ? -1 : a > b ? 1 : 0)) misordered.push(`${a} / ${b}`);
      }
    }
    expect(misordered).toEqual([]);
  });

  it("give each entry its string's idOrderKey and hashString", () => {
    const strings = [...SAMPLES, 'abcdefghij', 'abcdefg', '\u00ff\u00fe\u0080xyzw'];
    const packed = PackedStrings.from(strings);
    strings.forEach((text, i) => {
      expect(packed.orderKey(i)).toBe(idOrderKey(text));
      expect(packed.hash(i)).toBe(hashString(text));
    });
  });

  it('give order keys that never contradict JavaScript order, characters past ASCII included', () => {
    // 'a\u007fz' < 'a\u0080' in JavaScript: a key that read on after the clamped character put them the other way
    const strings = [...SAMPLES, 'a\u007fz', 'a\u0080', 'a\u00e9', 'a\u00ffb', 'a\u007f', 'a~z', 'b', 'a\u0100a', 'a\u0080\u0000'];
    const packed = PackedStrings.from(strings);
    const contradictions: string[] = [];
    for (let i = 0; i < strings.length; i++) {
      for (let j = 0; j < strings.length; j++) {
        if (strings[i]! < strings[j]! && (idOrderKey(strings[i]!) > idOrderKey(strings[j]!) || packed.orderKey(i) > packed.orderKey(j))) {
          contradictions.push(`${JSON.stringify(strings[i])} < ${JSON.stringify(strings[j])}`);
        }
      }
    }
    expect(contradictions).toEqual([]);
  });

  it('move entries down in order and truncate, as a compaction does, strings kept aside moving with them', () => {
    const strings = randomStrings(2_000, 7);
    const random = seededRandom(9);
    for (let round = 0; round < 5; round++) {
      const packed = PackedStrings.from(strings);
      const kept: string[] = [];
      for (let from = 0; from < strings.length; from++) {
        if (random() < 0.4) continue;
        if (kept.length !== from) packed.moveDown(from, kept.length);
        kept.push(strings[from]!);
      }
      packed.truncate(kept.length);
      expect(packed.length).toBe(kept.length);
      kept.forEach((text, i) => expect(packed.get(i)).toBe(text));
      // appends after a compaction go after the kept entries
      packed.append('日本-after');
      packed.append('after');
      expect(packed.get(kept.length)).toBe('日本-after');
      expect(packed.get(kept.length + 1)).toBe('after');
    }
  });

  it('round-trip through a snapshot as their arrays, and keep appending after', () => {
    const strings = [...SAMPLES, ...randomStrings(500, 3)];
    const original = PackedStrings.from(strings);
    const writer = new SnapshotWriter();
    original.addTo(writer, 'ids');
    const restored = PackedStrings.read(new SnapshotReader(writer.finish({})), 'ids');
    expect(restored.length).toBe(strings.length);
    strings.forEach((text, i) => {
      expect(restored.get(i)).toBe(text);
      expect(restored.equals(i, text)).toBe(true);
    });
    restored.append('Ω-new');
    restored.append('new');
    expect(restored.get(strings.length)).toBe('Ω-new');
    expect(restored.get(strings.length + 1)).toBe('new');
  });

  it('give a page of entries at once as one by one, entries kept aside and empty ones included', () => {
    const strings = [...SAMPLES, ...randomStrings(300, 7)];
    const packed = PackedStrings.from(strings);
    const page = Uint32Array.from({ length: 40 }, (_, j) => (j * 37) % strings.length);
    const out = ['before'];
    packed.getMany(page, 3, 40, out);
    expect(out).toEqual(['before', ...Array.from(page.subarray(3), (i) => strings[i]!)]);
    packed.getMany(page, 5, 5, out);
    expect(out.length).toBe(38);
  });

  it('make Latin-1 strings of every length and every byte as Buffer decodes them', () => {
    const random = seededRandom(0x1a71);
    const bytes = Uint8Array.from({ length: 4_096 }, (_, i) => (i < 256 ? i : Math.floor(random() * 256)));
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    for (let length = 0; length <= 40; length++) {
      for (const start of [0, 1, 200, 241, 4_096 - length]) {
        expect(decodeLatin1(bytes, text, start, start + length)).toBe(text.toString('latin1', start, start + length));
      }
    }
  });

  it('refuse a snapshot whose offsets do not match its bytes', () => {
    const writer = new SnapshotWriter();
    writer.add('ids.offsets', Uint32Array.of(0, 3, 9));
    writer.add('ids.bytes', new Uint8Array(5));
    writer.add('ids.aside', new Uint32Array(0));
    writer.addStrings('ids.asideStrings', []);
    expect(() => PackedStrings.read(new SnapshotReader(writer.finish({})), 'ids')).toThrow(/corrupt/);
  });
});
