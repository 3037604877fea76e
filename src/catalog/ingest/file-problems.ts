import fsp from 'node:fs/promises';

/*
 * Why a file of a folder could not be ingested, in words an editor acts on ("the file is cut
 * short", "permission denied"), not the decoder's message. The file's first bytes tell what it
 * really is when its name says otherwise.
 */

/** How many first bytes are read to tell what a file is. */
const HEAD_BYTES = 200;

/** A file kind told by its first bytes, for files that are no picture or video we take. */
const OTHER_KINDS: ReadonlyArray<{ kind: string; test: (head: Buffer, text: string) => boolean }> = [
  { kind: 'a PDF', test: (_head, text) => text.startsWith('%PDF') },
  { kind: 'a GIF picture, which is not taken: convert it to PNG or JPEG', test: (_head, text) => text.startsWith('GIF8') },
  { kind: 'a HEIC or AVIF picture, which is not taken: convert it to JPEG', test: (_head, text) => /^ftyp(heic|heix|hevc|mif1|avif)/.test(text.slice(4, 12)) },
  { kind: 'a ZIP archive (or an office document)', test: (_head, text) => text.startsWith('PK\x03\x04') },
  { kind: 'an SVG drawing, which is not taken: export it as PNG', test: (_head, text) => /^\s*(<\?xml[^>]*>\s*)?<svg/i.test(text) },
  { kind: 'a web page', test: (_head, text) => /^\s*<(!doctype html|html)/i.test(text) },
  { kind: 'a BMP picture, which is not taken: convert it to PNG', test: (_head, text) => text.startsWith('BM') },
  { kind: 'a text file', test: (head) => head.length > 0 && head.every((byte) => byte === 9 || byte === 10 || byte === 13 || (byte >= 32 && byte < 127)) },
];

const PICTURE_SIGNATURES: ReadonlyArray<{ kind: 'jpeg' | 'png' | 'webp' | 'tiff'; test: (head: Buffer, text: string) => boolean }> = [
  { kind: 'jpeg', test: (head) => head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff },
  { kind: 'png', test: (_head, text) => text.startsWith('\x89PNG\r\n\x1a\n') },
  { kind: 'webp', test: (_head, text) => text.startsWith('RIFF') && text.slice(8, 12) === 'WEBP' },
  { kind: 'tiff', test: (_head, text) => text.startsWith('II*\0') || text.startsWith('MM\0*') },
];

/** Video containers by their first bytes: MP4 and MOV, Matroska and WebM, AVI, MPEG streams. */
function looksLikeVideo(head: Buffer, text: string): boolean {
  return (
    text.slice(4, 8) === 'ftyp' ||
    text.slice(4, 8) === 'moov' ||
    (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) ||
    (text.startsWith('RIFF') && text.slice(8, 11) === 'AVI') ||
    // An MPEG transport stream: a sync byte at the start of each 188-byte packet.
    (head[0] === 0x47 && head[188] === 0x47) ||
    (head[0] === 0 && head[1] === 0 && head[2] === 1 && (head[3] === 0xba || head[3] === 0xb3))
  );
}

/** The reason a file system error gives, in words. */
export function fileSystemReason(error: unknown): string | undefined {
  switch ((error as NodeJS.ErrnoException | undefined)?.code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOENT':
      return 'the file is gone (removed while the folder was read)';
    case 'EISDIR':
      return 'it is a folder, not a file';
    case 'EIO':
      return 'the disk could not read it (an input/output error)';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many files are open at once on this machine';
    default:
      return undefined;
  }
}

/**
 * Why a file that should be a picture (`expected: 'image'`) or a video could not be read or
 * decoded, in words. `error` is what reading or decoding it threw.
 */
export async function unreadableReason(file: string, expected: 'image' | 'video', error: unknown): Promise<string> {
  const fromFileSystem = fileSystemReason(error) ?? fileSystemReason((error as { cause?: unknown } | undefined)?.cause);
  if (fromFileSystem !== undefined) return fromFileSystem;
  let head: Buffer;
  let size: number;
  try {
    const handle = await fsp.open(file, 'r');
    try {
      size = (await handle.stat()).size;
      const buffer = Buffer.alloc(HEAD_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, HEAD_BYTES, 0);
      head = buffer.subarray(0, bytesRead);
    } finally {
      await handle.close();
    }
  } catch (readError) {
    return fileSystemReason(readError) ?? 'it could not be read';
  }
  if (size === 0) return 'the file is empty';
  if (head.every((byte) => byte === 0)) return 'the file holds nothing but zero bytes (a failed copy or download?)';
  const text = head.toString('latin1');
  const message = messageChain(error);
  const picture = PICTURE_SIGNATURES.find(({ test }) => test(head, text));
  if (picture !== undefined) {
    if (expected === 'video') return `it is a ${picture.kind.toUpperCase()} picture, not a video: give it a picture's extension`;
    if (/premature end|end of stream|truncat|unexpected end|not enough data|short read/i.test(message) || (await endsShort(file, picture.kind, size))) {
      return 'the file is cut short';
    }
    if (/pixel limit/i.test(message)) return 'the picture has more pixels than the server will decode';
    return `the ${picture.kind.toUpperCase()} picture is damaged and cannot be decoded`;
  }
  if (looksLikeVideo(head, text)) {
    if (expected === 'image') return 'it is a video, not a picture: give it a video file extension';
    if (/moov atom not found|end of file|truncat|invalid data found/i.test(message)) return 'the video is damaged or cut short and cannot be decoded';
    return 'the video cannot be decoded (damaged, or a codec this server cannot read)';
  }
  const other = OTHER_KINDS.find(({ test }) => test(head, text));
  return `not an image or video file we can read${other === undefined ? '' : ` (it looks like ${other.kind})`}`;
}

/** Whether a JPEG or PNG lacks its closing marker: the usual sign of a copy or download cut short. */
async function endsShort(file: string, kind: string, size: number): Promise<boolean> {
  if (kind !== 'jpeg' && kind !== 'png') return false;
  const tailLength = Math.min(size, 64);
  const handle = await fsp.open(file, 'r');
  try {
    const tail = Buffer.alloc(tailLength);
    await handle.read(tail, 0, tailLength, size - tailLength);
    if (kind === 'png') return !tail.includes(Buffer.from('IEND', 'latin1'));
    // A JPEG ends with FFD9, which some writers follow with padding.
    return !tail.includes(Buffer.from([0xff, 0xd9]));
  } finally {
    await handle.close();
  }
}

function messageChain(error: unknown): string {
  const parts: string[] = [];
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) parts.push(current.message);
  return parts.join(' / ');
}
