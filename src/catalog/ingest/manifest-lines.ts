import fs from 'node:fs';
import readline from 'node:readline';
import { checkManifestLine, type ManifestRecord } from './ingest.schemas.js';

/**
 * A manifest's lines as the ingest takes them, in order: a line a batch can take already parsed
 * and checked (BatchedLine), any other as its text, which the ingest parses and checks on its own
 * to report its reason (or reads its file). Made here, and not by the ingest's loop, so that a long
 * run can make them in a worker thread while the loop writes the batch before
 * (manifest-reader.ts).
 */
export type ManifestItem = BatchedLine | UnbatchedLine;

/** A manifest line of an event, or of an image or video that names no file: stored with others in one batch. */
export interface BatchedLine<R extends ManifestRecord = ManifestRecord> {
  lineNumber: number;
  record: R;
  /** Every top-level field the raw line names, null ones included. */
  named: ReadonlySet<string>;
}

/** A line that is not batched: one with a file, or one its check refuses (its text, as read). */
export interface UnbatchedLine {
  lineNumber: number;
  text: string;
}

/** The items of a run of lines, and how many non-blank lines before them were done by a run that stopped. */
export interface ManifestChunk {
  earlier: number;
  items: ManifestItem[];
}

export interface ManifestReading {
  /** Lines through this one were stored or refused by a run that stopped: counted, not read into items. */
  resumeAfter: number;
  /** False (a dry run): every line comes as its text. */
  batchable: boolean;
}

/** Items in one chunk: a worker's message, small beside a batch so that the two overlap. */
export const CHUNK_LINES = 1_000;

/** The manifest's non-blank lines as items, a chunk at a time; blank lines are skipped but keep their numbers. */
export async function* manifestChunks(file: string, reading: ManifestReading): AsyncGenerator<ManifestChunk> {
  let chunk: ManifestChunk = { earlier: 0, items: [] };
  let lineNumber = 0;
  for await (const rawLine of readline.createInterface({ input: fs.createReadStream(file, { encoding: 'utf8' }), crlfDelay: Infinity })) {
    lineNumber += 1;
    const line = lineNumber === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine;
    if (line.trim() === '') continue;
    if (lineNumber <= reading.resumeAfter) {
      chunk.earlier += 1;
      continue;
    }
    chunk.items.push((reading.batchable ? batchedLine(line, lineNumber) : undefined) ?? { lineNumber, text: line });
    if (chunk.items.length >= CHUNK_LINES) {
      yield chunk;
      chunk = { earlier: 0, items: [] };
    }
  }
  if (chunk.items.length > 0 || chunk.earlier > 0) yield chunk;
}

export function isBatched(item: ManifestItem): item is BatchedLine {
  return 'record' in item;
}

/**
 * The line as a record that a batch can take, when it is one: a valid event, or image or video
 * with neither `file` nor `eps_file`. Undefined for anything else (a line with a file, a line
 * that is refused), which goes the one-by-one way, where a refusal gets its reason.
 */
export function batchedLine(line: string, lineNumber: number): BatchedLine | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  const checked = checkManifestLine(value);
  if (!checked.ok) return undefined;
  const record = checked.record;
  if (record.asset_type !== 'event' && record.file !== undefined) return undefined;
  if (record.asset_type === 'image' && record.eps_file !== undefined) return undefined;
  return { lineNumber, record, named: namedFields(value) };
}

/** Every top-level field a raw record names, null ones included. */
export function namedFields(value: unknown): ReadonlySet<string> {
  return new Set(typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.keys(value) : []);
}

/*
 * A chunk as the text a worker sends: one JSON document, parsed by the receiving thread in one
 * call. A structured clone of the records costs the receiver more than parsing them again (measured
 * over 30,600 lines: 2.9 s against 1.3 s), and JSON carries a checked record exactly: it is made of
 * JSON's values (its dates normalised to text), with no undefined member.
 *
 * An item is [line, record] when the line names the record's own fields, [line, record, named]
 * when it names others too (a field given as null), [line, text] when it is not batched.
 */
type EncodedItem = [number, ManifestRecord] | [number, ManifestRecord, string[]] | [number, string];

export function encodeChunk(chunk: ManifestChunk): string {
  const items = chunk.items.map((item): string => {
    if (!isBatched(item)) return `[${item.lineNumber},${JSON.stringify(item.text)}]`;
    const own = Object.keys(item.record);
    const sameNames = own.length === item.named.size && own.every((name) => item.named.has(name));
    return `[${item.lineNumber},${JSON.stringify(item.record)}${sameNames ? '' : `,${JSON.stringify([...item.named])}`}]`;
  });
  return `{"earlier":${chunk.earlier},"items":[${items.join(',')}]}`;
}

export function decodeChunk(text: string): ManifestChunk {
  const encoded = JSON.parse(text) as { earlier: number; items: EncodedItem[] };
  return {
    earlier: encoded.earlier,
    items: encoded.items.map((item): ManifestItem => {
      const [lineNumber, content, named] = item;
      if (typeof content === 'string') return { lineNumber, text: content };
      return { lineNumber, record: content, named: new Set(named ?? Object.keys(content)) };
    }),
  };
}
