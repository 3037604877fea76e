/**
 * EPS (Encapsulated PostScript) files: the vector original an image may have beside the raster
 * file it is shown and sized from (the ingest field `eps_file`). Search offers it through
 * `file_types=eps`, and a download with `file_type=eps` delivers it as it was given.
 *
 * Nothing here runs PostScript: an EPS is recognised by its header, the DSC comments the EPS
 * format requires (`%!PS-Adobe-n.n EPSF-n.n` on the first line, a `%%BoundingBox`), in plain
 * form or wrapped in the binary "DOS EPS" header that carries a preview beside the PostScript.
 */

export const EPS_MEDIA_TYPE = 'application/postscript';
export const EPS_EXTENSION = 'eps';
/** The name of an image's download size that is its EPS file (TeeShirtSize's `vector`). */
export const VECTOR_SIZE_NAME = 'vector';

/** What an EPS file says of itself. */
export interface EpsFacts {
  /** The bounding box's width and height, in PostScript points (1/72 inch). */
  width: number;
  height: number;
  bytes: number;
}

export class NotAnEpsFileError extends Error {}

/** The binary header of a DOS EPS file: C5 D0 D3 C6, then the PostScript section's offset and length. */
const DOS_EPS_MAGIC = 0xc6d3d0c5;
const DOS_EPS_HEADER_BYTES = 30;
/** The DSC header comments are at the start; this much is read for them (a trailer's bounding box at the end). */
const HEADER_SCAN_BYTES = 64 * 1024;
const FIRST_LINE = /^%!PS-Adobe-\d+(?:\.\d+)? EPSF-\d+(?:\.\d+)?[ \t]*$/;
const NUMBER = '(-?\\d+(?:\\.\\d+)?)';
const BOUNDING_BOX = new RegExp(`^%%BoundingBox:[ \\t]*${NUMBER}[ \\t]+${NUMBER}[ \\t]+${NUMBER}[ \\t]+${NUMBER}[ \\t]*$`, 'gm');
const BOUNDING_BOX_AT_END = /^%%BoundingBox:[ \t]*\(atend\)[ \t]*$/m;

/** Reads an EPS file's bounding box; throws NotAnEpsFileError with the reason for anything else. */
export function probeEps(data: Buffer): EpsFacts {
  const postscript = postscriptSection(data);
  const firstLine = postscript.subarray(0, 256).toString('latin1').split(/\r\n|\r|\n/, 1)[0] ?? '';
  if (!FIRST_LINE.test(firstLine)) {
    throw new NotAnEpsFileError(`not an EPS file: it must begin with a line such as '%!PS-Adobe-3.0 EPSF-3.0' (found '${printable(firstLine)}')`);
  }
  const head = postscript.subarray(0, HEADER_SCAN_BYTES).toString('latin1');
  // (atend): the box is given in the trailer, the last one in the file.
  const text = BOUNDING_BOX_AT_END.test(head) ? postscript.subarray(Math.max(0, postscript.length - HEADER_SCAN_BYTES)).toString('latin1') : head;
  const boxes = [...text.replace(/\r\n?/g, '\n').matchAll(BOUNDING_BOX)];
  const box = BOUNDING_BOX_AT_END.test(head) ? boxes.at(-1) : boxes[0];
  if (box === undefined) throw new NotAnEpsFileError('not an EPS file: it has no %%BoundingBox comment of four numbers');
  const [llx, lly, urx, ury] = box.slice(1, 5).map(Number) as [number, number, number, number];
  const width = Math.ceil(urx - llx);
  const height = Math.ceil(ury - lly);
  if (!(width >= 1 && height >= 1)) throw new NotAnEpsFileError(`the EPS file's %%BoundingBox (${llx} ${lly} ${urx} ${ury}) encloses nothing`);
  return { width, height, bytes: data.length };
}

/** The PostScript of the file: all of it, or the section a DOS EPS header points at. */
function postscriptSection(data: Buffer): Buffer {
  if (data.length < 4 || data.readUInt32LE(0) !== DOS_EPS_MAGIC) return data;
  if (data.length < DOS_EPS_HEADER_BYTES) throw new NotAnEpsFileError('a DOS EPS file cut short in its header');
  const offset = data.readUInt32LE(4);
  const length = data.readUInt32LE(8);
  if (offset < DOS_EPS_HEADER_BYTES || length === 0 || offset + length > data.length) {
    throw new NotAnEpsFileError('a DOS EPS file whose PostScript section lies outside the file');
  }
  return data.subarray(offset, offset + length);
}

function printable(text: string): string {
  const shown = text.slice(0, 40).replace(/[^\x20-\x7e]/g, '?');
  return text.length > 40 ? `${shown}…` : shown;
}
