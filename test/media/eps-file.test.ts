import { describe, expect, it } from 'vitest';
import { drawDemoEps } from '../../src/media/draw-demo-eps.js';
import { NotAnEpsFileError, probeEps } from '../../src/media/eps-file.js';

/*
 * An EPS is recognised by its DSC header and sized by its bounding box, plain or inside a DOS
 * EPS binary header; anything else is refused with the reason.
 */

const eps = (...lines: string[]) => Buffer.from(lines.join('\n'), 'latin1');

/** A DOS EPS: the 30-byte binary header, then the PostScript section it points at. */
function dosEps(postscript: Buffer): Buffer {
  const header = Buffer.alloc(30);
  header.writeUInt32LE(0xc6d3d0c5, 0);
  header.writeUInt32LE(30, 4);
  header.writeUInt32LE(postscript.length, 8);
  header.writeUInt16LE(0xffff, 28);
  return Buffer.concat([header, postscript]);
}

describe('probeEps', () => {
  it('reads the bounding box of the demo drawing, in points, and its byte count', () => {
    const file = drawDemoEps({ seed: 7, width: 1600, height: 1067, title: 'Dunes (at dusk) \\ 2024 – Été', palette: ['#123456', '#abc', '#ffcc00'] });
    expect(probeEps(file)).toEqual({ width: 1600, height: 1067, bytes: file.length });
    // The title is printable ASCII with its parentheses and backslashes escaped.
    expect(file.toString('latin1')).toContain('%%Title: (Dunes \\(at dusk\\) \\\\ 2024  Ete)');
    expect(drawDemoEps({ seed: 7, width: 1600, height: 1067, title: 'x', palette: ['#123456'] })).toEqual(
      drawDemoEps({ seed: 7, width: 1600, height: 1067, title: 'x', palette: ['#123456'] }),
    );
  });

  it('takes an offset box, decimals, CRLF lines, a box given at the end, and a DOS EPS', () => {
    expect(probeEps(eps('%!PS-Adobe-3.0 EPSF-3.0\r', '%%BoundingBox: 10 20 110.5 70\r', '%%EndComments\r'))).toMatchObject({ width: 101, height: 50 });
    expect(probeEps(eps('%!PS-Adobe-2.0 EPSF-1.2', '%%BoundingBox: (atend)', '%%EndComments', 'showpage', '%%Trailer', '%%BoundingBox: 0 0 300 200'))).toMatchObject({ width: 300, height: 200 });
    const inner = eps('%!PS-Adobe-3.0 EPSF-3.0', '%%BoundingBox: 0 0 40 30', '%%EOF');
    expect(probeEps(dosEps(inner))).toEqual({ width: 40, height: 30, bytes: inner.length + 30 });
  });

  it('refuses what is no EPS, saying why', () => {
    const refusal = (data: Buffer) => {
      try {
        probeEps(data);
      } catch (error) {
        expect(error).toBeInstanceOf(NotAnEpsFileError);
        return (error as Error).message;
      }
      throw new Error('accepted');
    };
    expect(refusal(Buffer.from([0xff, 0xd8, 0xff, 0xe0]))).toMatch(/must begin with a line such as '%!PS-Adobe-3.0 EPSF-3.0'/);
    // PostScript that is not encapsulated (no EPSF on its first line) is a page description, not an EPS.
    expect(refusal(eps('%!PS-Adobe-3.0', '%%BoundingBox: 0 0 10 10'))).toMatch(/must begin/);
    expect(refusal(eps('%!PS-Adobe-3.0 EPSF-3.0', '%%Title: (no box)'))).toMatch(/no %%BoundingBox/);
    expect(refusal(eps('%!PS-Adobe-3.0 EPSF-3.0', '%%BoundingBox: 0 0 0 10'))).toMatch(/encloses nothing/);
    const cut = dosEps(eps('%!PS-Adobe-3.0 EPSF-3.0', '%%BoundingBox: 0 0 4 3')).subarray(0, 40);
    expect(refusal(cut)).toMatch(/outside the file/);
    expect(refusal(Buffer.alloc(0))).toMatch(/must begin/);
  });
});
