import sharp from 'sharp';

/*
 * Pictures carrying embedded metadata, written by the tests: EXIF through sharp's withExif,
 * XMP through withXmp, and IPTC IIM as the APP13 "Photoshop 3.0" segment photo tools write
 * (sharp writes no IPTC of its own), put right after the JPEG's start marker.
 */

/** IPTC IIM record 2 datasets by number: 5 object name, 25 keywords, 55/60 date and time created, 80 by-line, … */
export const IPTC = {
  objectName: 5,
  keywords: 25,
  dateCreated: 55,
  timeCreated: 60,
  byline: 80,
  city: 90,
  state: 95,
  countryCode: 100,
  country: 101,
  credit: 110,
  copyright: 116,
  caption: 120,
} as const;

/** An APP13 segment holding the IIM datasets, declared UTF-8 (dataset 1:90, ESC % G) as current tools write it. */
export function iptcSegment(datasets: ReadonlyArray<readonly [number, string]>): Buffer {
  const utf8Declaration = Buffer.from([0x1c, 1, 90, 0, 3, 0x1b, 0x25, 0x47]);
  const parts = datasets.map(([tag, text]) => {
    const value = Buffer.from(text, 'utf8');
    return Buffer.concat([Buffer.from([0x1c, 2, tag, value.length >> 8, value.length & 0xff]), value]);
  });
  const iim = Buffer.concat([utf8Declaration, ...parts]);
  const size = Buffer.alloc(4);
  size.writeUInt32BE(iim.length);
  const resource = Buffer.concat([Buffer.from('8BIM'), Buffer.from([0x04, 0x04, 0, 0]), size, iim, Buffer.alloc(iim.length % 2)]);
  const body = Buffer.concat([Buffer.from('Photoshop 3.0\0', 'latin1'), resource]);
  const header = Buffer.from([0xff, 0xed, 0, 0]);
  header.writeUInt16BE(body.length + 2, 2);
  return Buffer.concat([header, body]);
}

export interface XmpFacts {
  title?: string;
  description?: string;
  subjects?: string[];
  creator?: string;
  rights?: string;
  credit?: string;
  dateCreated?: string;
  city?: string;
  state?: string;
  country?: string;
  countryCode?: string;
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** An XMP packet with the dc, photoshop and Iptc4xmpCore properties given. */
export function xmpPacket(facts: XmpFacts): string {
  const alt = (name: string, text: string | undefined) =>
    text === undefined ? '' : `<${name}><rdf:Alt><rdf:li xml:lang="x-default">${escapeXml(text)}</rdf:li></rdf:Alt></${name}>`;
  const simple = (name: string, text: string | undefined) => (text === undefined ? '' : `<${name}>${escapeXml(text)}</${name}>`);
  const bag = facts.subjects ? `<dc:subject><rdf:Bag>${facts.subjects.map((s) => `<rdf:li>${escapeXml(s)}</rdf:li>`).join('')}</rdf:Bag></dc:subject>` : '';
  const creator = facts.creator ? `<dc:creator><rdf:Seq><rdf:li>${escapeXml(facts.creator)}</rdf:li></rdf:Seq></dc:creator>` : '';
  return (
    '<?xpacket begin="\uFEFF" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/">' +
    '<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""' +
    ' xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"' +
    ' xmlns:Iptc4xmpCore="http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/">' +
    alt('dc:title', facts.title) +
    alt('dc:description', facts.description) +
    bag +
    creator +
    alt('dc:rights', facts.rights) +
    simple('photoshop:Credit', facts.credit) +
    simple('photoshop:DateCreated', facts.dateCreated) +
    simple('photoshop:City', facts.city) +
    simple('photoshop:State', facts.state) +
    simple('photoshop:Country', facts.country) +
    simple('Iptc4xmpCore:CountryCode', facts.countryCode) +
    '</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>'
  );
}

export interface PictureMetadata {
  exif?: Record<string, string>;
  xmp?: XmpFacts;
  iptc?: ReadonlyArray<readonly [number, string]>;
}

/** A plain JPEG of one colour carrying the metadata given. */
export async function jpegWithMetadata(metadata: PictureMetadata, options: { width?: number; height?: number; colour?: string } = {}): Promise<Buffer> {
  let image = sharp({ create: { width: options.width ?? 320, height: options.height ?? 240, channels: 3, background: options.colour ?? '#4a7fb0' } }).jpeg({ quality: 90 });
  if (metadata.exif) image = image.withExif({ IFD0: metadata.exif });
  if (metadata.xmp) image = image.withXmp(xmpPacket(metadata.xmp));
  const jpeg = await image.toBuffer();
  if (!metadata.iptc) return jpeg;
  return Buffer.concat([jpeg.subarray(0, 2), iptcSegment(metadata.iptc), jpeg.subarray(2)]);
}
