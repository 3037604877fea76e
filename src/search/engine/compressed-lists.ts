/**
 * Ascending lists of documents (ordinals) at about a byte and a half a posting instead of four:
 * each list is cut into blocks of 2^b postings (b chosen per list, at most MAX_BLOCK_SHIFT), a
 * block keeps its first document in full and each posting its distance from it in `width` bits
 * (one width per list, bit-packed one after another in 32-bit words, a distance crossing from
 * one word into the next). Per list, the b (and with it the width: the bits of the widest
 * block's span) that take the fewest bits in all is chosen: a common list has blocks of 32 to
 * 128 and distances of 8 to 14 bits, a rare one whose documents lie far apart b = 0 and width
 * 0: its blocks are its documents.
 *
 * Why this layout rather than delta-coded, bit-packed blocks: every posting stays readable
 * on its own in constant time — `blocks[firstBlock + (j >>> b)] + bits(wordBase, j * width)`,
 * j = i - start (see documentAt) — so the list loops keep their shape (walks, binary searches
 * by document, a posting's index shared with its frequency code) with a few more operations a
 * posting and nothing decoded ahead into scratch. Deltas would take about a byte less a
 * posting (measured on the benchmark's catalogue: 40 MB where this takes 48 a million assets),
 * and a decode per block on every walk and every look-up.
 */
export interface CompressedLists {
  /** each block's first document; key k's blocks are `blocks[blockStart[k]..blockStart[k + 1])` (none: a dense or empty list) */
  blocks: Uint32Array;
  blockStart: Uint32Array;
  /** log2 of key k's block length (0: one document a block, width 0) */
  blockShift: Uint8Array;
  /** bits of each of key k's distances (0 to MAX_WIDTH) */
  width: Uint8Array;
  /** key k's distances, bit-packed, start at word `wordStart[k]` of `words` */
  wordStart: Uint32Array;
  /** the distances, then WORD_PADDING zero words (a read takes the word after its own) */
  words: Uint32Array;
}

const MAX_BLOCK_SHIFT = 10;
/** at most 31 bits a distance: a read's mask stays a positive int32 (a wider span takes smaller blocks) */
const MAX_WIDTH = 31;
/** zero words after the last list's: a read of any list (width 0 included) reads two words in bounds */
const WORD_PADDING = 2;

/** A list of documents as CompressedLists read it: posting i's document is documentAt(run, i). */
export interface PostingRun {
  words: Uint32Array;
  wordBase: number;
  width: number;
  /** the low `width` bits */
  mask: number;
  blocks: Uint32Array;
  firstBlock: number;
  blockShift: number;
  start: number;
  end: number;
}

export const NO_LISTS: CompressedLists = {
  blocks: new Uint32Array(0),
  blockStart: new Uint32Array(1),
  blockShift: new Uint8Array(0),
  width: new Uint8Array(0),
  wordStart: new Uint32Array(1),
  words: new Uint32Array(WORD_PADDING),
};

/** The low `width` bits set (width ≤ 31). */
export function maskOf(width: number): number {
  return width === 0 ? 0 : -1 >>> (32 - width);
}

function bitsOf(value: number): number {
  return 32 - Math.clz32(value);
}

/**
 * The block shift and width that take the fewest bits for `docs[from..to)`: for each shift, the
 * width is the bits of its widest block's span (a shift needing more than MAX_WIDTH is out).
 */
function layoutOf(docs: Uint32Array, from: number, to: number): { shift: number; width: number } {
  const count = to - from;
  let best = { shift: 0, width: 0 };
  let bestBits = 32 * count;
  for (let shift = 1; shift <= MAX_BLOCK_SHIFT && 1 << (shift - 1) < count; shift++) {
    const size = 1 << shift;
    let width = 0;
    for (let first = from; first < to; first += size) width = Math.max(width, bitsOf(docs[Math.min(first + size, to) - 1]! - docs[first]!));
    if (width > MAX_WIDTH) continue;
    const bits = 32 * ((count + size - 1) >>> shift) + count * width;
    if (bits < bestBits) {
      best = { shift, width };
      bestBits = bits;
    }
  }
  return best;
}

function wordsFor(count: number, width: number): number {
  return Math.ceil((count * width) / 32);
}

/**
 * Compresses the lists `docs[docStart[k]..docStart[k + 1])` (each ascending) but those of the
 * keys `skipped` marks (their lists come out empty).
 */
export function compressLists(docStart: Uint32Array, docs: Uint32Array, skipped: (key: number) => boolean): CompressedLists {
  const keys = docStart.length - 1;
  const blockStart = new Uint32Array(keys + 1);
  const wordStart = new Uint32Array(keys + 1);
  const blockShift = new Uint8Array(keys);
  const width = new Uint8Array(keys);
  let blockCount = 0;
  let wordCount = 0;
  for (let key = 0; key < keys; key++) {
    blockStart[key] = blockCount;
    wordStart[key] = wordCount;
    if (skipped(key)) continue;
    const from = docStart[key]!;
    const to = docStart[key + 1]!;
    const layout = layoutOf(docs, from, to);
    blockShift[key] = layout.shift;
    width[key] = layout.width;
    blockCount += (to - from + (1 << layout.shift) - 1) >>> layout.shift;
    wordCount += wordsFor(to - from, layout.width);
  }
  blockStart[keys] = blockCount;
  wordStart[keys] = wordCount;
  const blocks = new Uint32Array(blockCount);
  const words = new Uint32Array(wordCount + WORD_PADDING);
  for (let key = 0; key < keys; key++) {
    if (skipped(key)) continue;
    const from = docStart[key]!;
    const count = docStart[key + 1]! - from;
    const shift = blockShift[key]!;
    const bits = width[key]!;
    const base = wordStart[key]!;
    let block = blockStart[key]!;
    for (let j = 0; j < count; j++) {
      if ((j & ((1 << shift) - 1)) === 0) blocks[block++] = docs[from + j]!;
      if (bits === 0) continue;
      const distance = docs[from + j]! - blocks[block - 1]!;
      const bit = j * bits;
      const w = base + (bit >>> 5);
      const s = bit & 31;
      words[w] = words[w]! | (distance << s);
      if (s + bits > 32) words[w + 1] = words[w + 1]! | (distance >>> (32 - s));
    }
  }
  return { blocks, blockStart, blockShift, width, wordStart, words };
}

/** Checks lists read from a snapshot against their posting starts (`start`, in the codes' numbering). */
export function checkLists(lists: CompressedLists, start: Uint32Array): void {
  const keys = start.length - 1;
  const { blocks, blockStart, blockShift, width, wordStart, words } = lists;
  const fits =
    blockStart.length === keys + 1 &&
    wordStart.length === keys + 1 &&
    blockShift.length === keys &&
    width.length === keys &&
    blockStart[0] === 0 &&
    wordStart[0] === 0 &&
    blockStart[keys] === blocks.length &&
    wordStart[keys]! + WORD_PADDING === words.length;
  if (!fits) throw new Error('search index snapshot: the compressed posting lists are out of step');
  for (let key = 0; key < keys; key++) {
    const shift = blockShift[key]!;
    const bits = width[key]!;
    const blockCount = blockStart[key + 1]! - blockStart[key]!;
    const wordCount = wordStart[key + 1]! - wordStart[key]!;
    // no blocks: an empty list, or a dense one (its bitmap has its documents)
    const count = blockCount === 0 ? 0 : start[key + 1]! - start[key]!;
    const fitting = shift <= MAX_BLOCK_SHIFT && bits <= MAX_WIDTH && blockCount === (count + (1 << shift) - 1) >>> shift && wordCount === wordsFor(count, bits);
    if (!fitting) throw new Error('search index snapshot: the compressed posting lists are out of step');
  }
}

/** Whether key `key`'s list has its documents here (not a dense one, whose bitmap has them, nor an empty one). */
export function hasDocuments(lists: CompressedLists, key: number): boolean {
  return lists.blockStart[key + 1]! > lists.blockStart[key]!;
}

/** The run of key `key`'s list, whose postings are numbered `start..end` (see PostingRun); empty for a dense list. */
export function runOf(lists: CompressedLists, key: number, start: number, end: number): PostingRun {
  const bits = lists.width[key]!;
  return {
    words: lists.words,
    wordBase: lists.wordStart[key]!,
    width: bits,
    mask: maskOf(bits),
    blocks: lists.blocks,
    firstBlock: lists.blockStart[key]!,
    blockShift: lists.blockShift[key]!,
    start,
    end: hasDocuments(lists, key) ? end : start,
  };
}

/** The documents of a run, decoded (for tests and checks, not for searches). */
export function documentsOf(run: PostingRun): number[] {
  const documents: number[] = [];
  for (let i = run.start; i < run.end; i++) documents.push(documentAt(run, i));
  return documents;
}

const NO_WORDS = new Uint32Array(WORD_PADDING);

/** A plain list of documents `docs[0..length)` (a tail list) as a run: blocks of one document, no distances. */
export function plainRun(docs: Uint32Array, length: number): PostingRun {
  return { words: NO_WORDS, wordBase: 0, width: 0, mask: 0, blocks: docs, firstBlock: 0, blockShift: 0, start: 0, end: length };
}

/**
 * The document of posting i of the run: its block's first plus its distance, `width` bits at
 * bit j·width of the run's words (j = i − start), read from the two words it may straddle.
 * The hot loops write this out with the run's fields in locals.
 */
export function documentAt(run: PostingRun, i: number): number {
  const j = i - run.start;
  return run.blocks[run.firstBlock + (j >>> run.blockShift)]! + bitsAt(run.words, run.wordBase, j * run.width, run.mask);
}

/** The `mask` bits at bit `bit` from word `wordBase` of `words` (they may straddle two words; both are read, the padding keeps the second in bounds). */
export function bitsAt(words: Uint32Array, wordBase: number, bit: number, mask: number): number {
  const w = wordBase + (bit >>> 5);
  const s = bit & 31;
  return ((words[w]! >>> s) | ((words[w + 1]! << 1) << (31 - s))) & mask;
}

/**
 * First posting in `[low, high)` of the run whose document is ≥ target (exponential, then
 * binary search), or `high`.
 */
export function gallopRun(run: PostingRun, low: number, high: number, target: number): number {
  // documentAt written out over locals: this runs for every candidate looked up in a long list
  const { words, wordBase, width, mask, blocks, firstBlock, blockShift, start } = run;
  let j = low - start;
  let bit = j * width;
  let w = wordBase + (bit >>> 5);
  if (low >= high || blocks[firstBlock + (j >>> blockShift)]! + (((words[w]! >>> (bit & 31)) | ((words[w + 1]! << 1) << (31 - (bit & 31)))) & mask) >= target) return low;
  let previous = low;
  let step = 1;
  let probe = low + 1;
  while (probe < high) {
    j = probe - start;
    bit = j * width;
    w = wordBase + (bit >>> 5);
    if (blocks[firstBlock + (j >>> blockShift)]! + (((words[w]! >>> (bit & 31)) | ((words[w + 1]! << 1) << (31 - (bit & 31)))) & mask) >= target) break;
    previous = probe;
    step *= 2;
    probe = low + step;
  }
  let a = previous + 1;
  let b = Math.min(probe, high);
  while (a < b) {
    const middle = (a + b) >>> 1;
    j = middle - start;
    bit = j * width;
    w = wordBase + (bit >>> 5);
    if (blocks[firstBlock + (j >>> blockShift)]! + (((words[w]! >>> (bit & 31)) | ((words[w + 1]! << 1) << (31 - (bit & 31)))) & mask) < target) a = middle + 1;
    else b = middle;
  }
  return a;
}
