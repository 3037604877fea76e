/**
 * Ascending lists of documents (ordinals) at about two bytes a posting instead of four: each
 * list is cut into blocks of 2^b postings (b chosen per list, at most MAX_BLOCK_SHIFT), a block
 * keeps its first document in full and each posting its distance from it in 16 bits. The
 * largest b whose every block spans fewer than 65,536 documents is taken: a common list has
 * blocks of 256 (a block's four bytes nearly free), a rarer one smaller blocks. A list that
 * would take no less than four bytes a posting that way (a rare list whose documents lie far
 * apart: a keyword value, a rare word) has b = 0 and no distances: its blocks are its
 * documents, read with the shared zeros (`zerosFor`) as their distances.
 *
 * Why this layout rather than delta-coded, bit-packed blocks: every posting stays readable
 * on its own in constant time — `blocks[firstBlock + ((i - start) >>> b)] + low[i - shift]` —
 * so the list loops keep their shape (walks, binary searches by document, a posting's index
 * shared with its frequency code) with a few more operations a posting and nothing decoded
 * ahead into scratch. Deltas would take about a byte less a posting, and a decode per block
 * on every walk and every look-up.
 */
export interface CompressedLists {
  /** key k's distances are `low[docStart[k]..docStart[k + 1])` (none when its block shift is 0) */
  docStart: Uint32Array;
  /** each posting's document minus its block's first */
  low: Uint16Array;
  /** each block's first document; key k's blocks are `blocks[blockStart[k]..blockStart[k + 1])` */
  blocks: Uint32Array;
  blockStart: Uint32Array;
  /** log2 of key k's block length (0: one document a block, no distances) */
  blockShift: Uint8Array;
}

const MAX_BLOCK_SHIFT = 8;
const MAX_SPAN = 0xffff;

/** A list of documents as CompressedLists read it: posting i's document is `blocks[firstBlock + ((i - start) >>> blockShift)] + low[i - shift]`. */
export interface PostingRun {
  low: Uint16Array;
  shift: number;
  blocks: Uint32Array;
  firstBlock: number;
  blockShift: number;
  start: number;
  end: number;
}

export const NO_LISTS: CompressedLists = {
  docStart: new Uint32Array(1),
  low: new Uint16Array(0),
  blocks: new Uint32Array(0),
  blockStart: new Uint32Array(1),
  blockShift: new Uint8Array(0),
};

/**
 * The largest block shift whose every block of `docs[from..to)` spans at most MAX_SPAN
 * documents, or 0 when that takes no less room than the documents themselves.
 */
function blockShiftOf(docs: Uint32Array, from: number, to: number): number {
  const count = to - from;
  for (let shift = MAX_BLOCK_SHIFT; shift > 0; shift--) {
    const size = 1 << shift;
    let fits = true;
    for (let first = from; first < to && fits; first += size) fits = docs[Math.min(first + size, to) - 1]! - docs[first]! <= MAX_SPAN;
    if (fits) return 2 * count + 4 * ((count + size - 1) >>> shift) < 4 * count ? shift : 0;
  }
  return 0;
}

/**
 * Compresses the lists `docs[docStart[k]..docStart[k + 1])` (each ascending) but those of the
 * keys `skipped` marks (their lists come out empty).
 */
export function compressLists(docStart: Uint32Array, docs: Uint32Array, skipped: (key: number) => boolean): CompressedLists {
  const keys = docStart.length - 1;
  const newDocStart = new Uint32Array(keys + 1);
  const blockStart = new Uint32Array(keys + 1);
  const blockShift = new Uint8Array(keys);
  let postings = 0;
  let blockCount = 0;
  for (let key = 0; key < keys; key++) {
    newDocStart[key] = postings;
    blockStart[key] = blockCount;
    if (skipped(key)) continue;
    const from = docStart[key]!;
    const to = docStart[key + 1]!;
    const shift = blockShiftOf(docs, from, to);
    blockShift[key] = shift;
    if (shift > 0) postings += to - from;
    blockCount += (to - from + (1 << shift) - 1) >>> shift;
  }
  newDocStart[keys] = postings;
  blockStart[keys] = blockCount;
  const low = new Uint16Array(postings);
  const blocks = new Uint32Array(blockCount);
  for (let key = 0; key < keys; key++) {
    if (skipped(key)) continue;
    const from = docStart[key]!;
    const count = docStart[key + 1]! - from;
    const shift = blockShift[key]!;
    let block = blockStart[key]!;
    if (shift === 0) {
      blocks.set(docs.subarray(from, from + count), block);
      continue;
    }
    let write = newDocStart[key]!;
    for (let i = 0; i < count; i++) {
      if ((i & ((1 << shift) - 1)) === 0) blocks[block++] = docs[from + i]!;
      low[write++] = docs[from + i]! - blocks[block - 1]!;
    }
  }
  return { docStart: newDocStart, low, blocks, blockStart, blockShift };
}

/** Checks lists read from a snapshot against their posting starts (`start`, in the codes' numbering). */
export function checkLists(lists: CompressedLists, start: Uint32Array): void {
  const keys = start.length - 1;
  const { docStart, low, blocks, blockStart, blockShift } = lists;
  const fits = docStart.length === keys + 1 && blockStart.length === keys + 1 && blockShift.length === keys && docStart[keys] === low.length && blockStart[keys] === blocks.length;
  if (!fits) throw new Error('search index snapshot: the compressed posting lists are out of step');
  for (let key = 0; key < keys; key++) {
    const shift = blockShift[key]!;
    const distances = docStart[key + 1]! - docStart[key]!;
    const count = countOf(lists, key);
    const listed = count === 0 || count === start[key + 1]! - start[key]!;
    const fitting = shift === 0 ? distances === 0 : shift <= MAX_BLOCK_SHIFT && (count + (1 << shift) - 1) >>> shift === blockStart[key + 1]! - blockStart[key]!;
    if (!listed || !fitting) throw new Error('search index snapshot: the compressed posting lists are out of step');
  }
}

/** The documents in key `key`'s list (0 for a dense one, which has none here). */
export function countOf(lists: CompressedLists, key: number): number {
  return lists.blockShift[key] === 0 ? lists.blockStart[key + 1]! - lists.blockStart[key]! : lists.docStart[key + 1]! - lists.docStart[key]!;
}

/** The run of key `key`'s list, whose postings are numbered from `start` (see PostingRun). */
export function runOf(lists: CompressedLists, key: number, start: number): PostingRun {
  const count = countOf(lists, key);
  const blockShift = lists.blockShift[key]!;
  // one document a block: the distances all 0
  const low = blockShift === 0 ? zerosFor(count) : lists.low;
  const shift = blockShift === 0 ? start : start - lists.docStart[key]!;
  return { low, shift, blocks: lists.blocks, firstBlock: lists.blockStart[key]!, blockShift, start, end: start + count };
}

/** The documents of a run, decoded (for tests and checks, not for searches). */
export function documentsOf(run: PostingRun): number[] {
  const documents: number[] = [];
  for (let i = run.start; i < run.end; i++) documents.push(documentAt(run, i));
  return documents;
}

let zeros = new Uint16Array(1024);

/**
 * At least `length` zeros, shared: the `low` of a plain list of documents (a tail list), read
 * as a run of one-posting blocks whose first documents are the list itself.
 */
export function zerosFor(length: number): Uint16Array {
  if (zeros.length < length) zeros = new Uint16Array(Math.max(length, 2 * zeros.length));
  return zeros;
}

/** A plain list of documents `docs[0..length)` as a run. */
export function plainRun(docs: Uint32Array, length: number): PostingRun {
  return { low: zerosFor(length), shift: 0, blocks: docs, firstBlock: 0, blockShift: 0, start: 0, end: length };
}

/** The document of posting i of the run. */
export function documentAt(run: PostingRun, i: number): number {
  return run.blocks[run.firstBlock + ((i - run.start) >>> run.blockShift)]! + run.low[i - run.shift]!;
}

/**
 * First posting in `[low, high)` of the run whose document is ≥ target (exponential, then
 * binary search), or `high`.
 */
export function gallopRun(run: PostingRun, low: number, high: number, target: number): number {
  const { blocks, firstBlock, blockShift, start, shift } = run;
  const lows = run.low;
  if (low >= high || blocks[firstBlock + ((low - start) >>> blockShift)]! + lows[low - shift]! >= target) return low;
  let previous = low;
  let step = 1;
  let probe = low + 1;
  while (probe < high && blocks[firstBlock + ((probe - start) >>> blockShift)]! + lows[probe - shift]! < target) {
    previous = probe;
    step *= 2;
    probe = low + step;
  }
  let a = previous + 1;
  let b = Math.min(probe, high);
  while (a < b) {
    const middle = (a + b) >>> 1;
    if (blocks[firstBlock + ((middle - start) >>> blockShift)]! + lows[middle - shift]! < target) a = middle + 1;
    else b = middle;
  }
  return a;
}
