import sharp from 'sharp';
import { SIGNATURE_LENGTH, SIGNATURE_PARTS } from '../../../src/media/visual-signature.js';

/** A PNG of one colour. */
export function solidImage(colour: string, width = 320, height = 240): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: colour } })
    .png()
    .toBuffer();
}

/** An SVG drawing rendered by sharp to PNG. `body` is the inside of the <svg> element. */
export function drawnImage(body: string, width = 640, height = 480): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${body}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

/** `count` stripes of equal width, alternating between two colours, running across or down the picture. */
export function stripedImage(direction: 'horizontal' | 'vertical', count: number, colours: [string, string], size = 480): Promise<Buffer> {
  const band = size / count;
  const stripes = Array.from({ length: count }, (_, n) => {
    const fill = colours[n % 2]!;
    return direction === 'horizontal'
      ? `<rect x="0" y="${n * band}" width="${size}" height="${band}" fill="${fill}"/>`
      : `<rect x="${n * band}" y="0" width="${band}" height="${size}" fill="${fill}"/>`;
  });
  return drawnImage(stripes.join(''), size, size);
}

/** A small landscape: a sky gradient, a sun, two hills and a house; the colours are parameters. */
export function landscapeImage(colours: { skyTop: string; skyBottom: string; sun: string; farHill: string; nearHill: string }): Promise<Buffer> {
  return drawnImage(
    [
      `<defs><linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${colours.skyTop}"/><stop offset="1" stop-color="${colours.skyBottom}"/></linearGradient></defs>`,
      '<rect width="800" height="600" fill="url(#sky)"/>',
      `<circle cx="600" cy="150" r="70" fill="${colours.sun}"/>`,
      `<path d="M0 380 Q 200 260 420 360 T 800 330 L 800 600 L 0 600 Z" fill="${colours.farHill}"/>`,
      `<path d="M0 470 Q 300 380 560 460 T 800 450 L 800 600 L 0 600 Z" fill="${colours.nearHill}"/>`,
      '<rect x="180" y="400" width="90" height="70" fill="#f4efe6"/><path d="M170 400 L 225 355 L 280 400 Z" fill="#8a2f24"/>',
    ].join(''),
    800,
    600,
  );
}

/**
 * A random signature of the right shape and scale (soft layout signs, a normalised edge
 * grid, a sparse colour histogram), for exercising the index without drawing pictures.
 */
export function randomSignature(random: () => number): Float32Array {
  const signature = new Float32Array(SIGNATURE_LENGTH);
  const { colour, layout, edges } = SIGNATURE_PARTS;
  for (let i = 0; i < layout.length; i++) {
    signature[layout.offset + i] = (Math.max(-1, Math.min(1, (random() * 2 - 1) * 2)) * layout.weight) / layout.length;
  }
  let edgeTotal = 0;
  for (let i = 0; i < edges.length; i++) edgeTotal += signature[edges.offset + i] = random() ** 2;
  for (let i = 0; i < edges.length; i++) signature[edges.offset + i] = (signature[edges.offset + i]! / edgeTotal) * edges.weight;
  const used = 3 + Math.floor(random() * 8);
  let colourTotal = 0;
  for (let n = 0; n < used; n++) {
    const share = random();
    signature[colour.offset + Math.floor(random() * colour.length)]! += share;
    colourTotal += share;
  }
  for (let i = 0; i < colour.length; i++) signature[colour.offset + i] = (signature[colour.offset + i]! / colourTotal) * colour.weight;
  return signature;
}
