import { createHash } from 'node:crypto';
import { escapeHtml } from '../platform/http/escape-html.js';
import { FRAME_FOOTER_HEIGHT, type EmbedFrame } from './embed.service.js';

/*
 * The pages of the embed host: the embed page an oEmbed `html` frames, its "not available" page
 * and the terms of use. Pure functions from what to show to HTML and its headers. Other sites
 * frame these pages, so they carry no script, set no cookie and load nothing but the comp from
 * the API's host; the Content-Security-Policy says exactly that, and lets any site frame them.
 */

/** The one stylesheet, inline; its hash is the only style the policy allows. */
export const EMBED_STYLE = [
  'html,body{margin:0;height:100%}',
  'body{background:#18181b;color:#f4f4f5;font:13px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}',
  'figure{margin:0;display:flex;flex-direction:column;height:100%}',
  '.picture{flex:1 1 auto;min-height:0;display:flex;align-items:center;justify-content:center;overflow:hidden}',
  '.picture img{display:block;max-width:100%;max-height:100%;width:auto;height:auto}',
  `figcaption{flex:0 0 ${FRAME_FOOTER_HEIGHT}px;box-sizing:border-box;height:${FRAME_FOOTER_HEIGHT}px;padding:7px 10px;overflow:hidden}`,
  'figcaption a,figcaption span{display:block;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}',
  'figcaption a{color:#fff;font-weight:600;text-decoration:none}',
  'figcaption a:hover{text-decoration:underline}',
  'figcaption span{color:#d4d4d8}',
  'main{max-width:40rem;margin:0 auto;padding:1.5rem}',
  'main a{color:#93c5fd}',
  ':focus-visible{outline:2px solid #fff;outline-offset:2px}',
].join('\n');

/** CSP hash source of EMBED_STYLE (CSP3 §8.4: SHA-256 of the element's text, base64). */
const EMBED_STYLE_HASH = `sha256-${createHash('sha256').update(EMBED_STYLE, 'utf8').digest('base64')}`;

/**
 * The CSP source for images of the comp's host: its origin, or only its scheme where a CSP host
 * source cannot spell the host (an IPv6 literal).
 */
export function imageSource(uri: string): string {
  const url = new URL(uri);
  return /^[a-z0-9.-]+$/i.test(url.hostname) ? url.origin : url.protocol;
}

/**
 * Nothing but the style and (for the embed page) the comp's host; no script, no form, no base; and
 * any site may frame the page (`frame-ancestors *`, and no X-Frame-Options).
 */
export function embedContentSecurityPolicy(imageOrigin?: string): string {
  return [
    "default-src 'none'",
    ...(imageOrigin === undefined ? [] : [`img-src ${imageOrigin}`]),
    `style-src '${EMBED_STYLE_HASH}'`,
    "base-uri 'none'",
    "form-action 'none'",
    'frame-ancestors *',
  ].join('; ');
}

/** The headers of every page of the embed host. */
export function embedPageHeaders(imageOrigin: string | undefined, cacheSeconds: number): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': embedContentSecurityPolicy(imageOrigin),
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
    // A site that isolates itself (Cross-Origin-Embedder-Policy) may still frame the page.
    'cross-origin-resource-policy': 'cross-origin',
    'cache-control': cacheSeconds > 0 ? `public, max-age=${cacheSeconds}` : 'no-store',
  };
}

/** How long a frame may be cached: an hour at most, and never past its comp URI's expiry (with a minute to spare). */
export function frameCacheSeconds(frame: EmbedFrame): number {
  return Math.max(0, Math.min(3600, frame.secondsValid - 60));
}

function page(title: string, body: string): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width,initial-scale=1">',
    '<meta name="robots" content="noindex">',
    `<title>${escapeHtml(title)}</title>`,
    `<style>${EMBED_STYLE}</style>`,
    '</head>',
    `<body>${body}</body>`,
    '</html>',
  ].join('\n');
}

/** The embed page: the watermarked comp, its title and credit line, each a link back to the asset's page. */
export function renderFramePage(frame: EmbedFrame): string {
  const link = escapeHtml(frame.assetPageUrl);
  // The frame is on another site's page: links open the asset's page in a tab of its own.
  const target = 'target="_blank" rel="noopener"';
  return page(
    frame.title,
    [
      '<figure>',
      `<a class="picture" href="${link}" ${target}>` +
        `<img src="${escapeHtml(frame.comp.uri)}" width="${frame.comp.width}" height="${frame.comp.height}" alt="${escapeHtml(frame.description)}"></a>`,
      '<figcaption>',
      `<a href="${link}" ${target}>${escapeHtml(frame.title)}</a>`,
      `<span>${escapeHtml(frame.credit)}</span>`,
      '</figcaption>',
      '</figure>',
    ].join('\n'),
  );
}

/** An unknown asset, or one that may not be embedded. */
export function renderUnavailablePage(): string {
  return page('Not available', '<main><h1>Not available</h1><p>This picture cannot be shown here.</p></main>');
}

/** The terms that go with every embedded picture (the oEmbed `terms_of_use_url`). */
export function renderTermsPage(publicUrl: string): string {
  return page(
    'Terms of use for embedded pictures',
    [
      '<main>',
      '<h1>Terms of use for embedded pictures</h1>',
      '<p>A picture embedded from this library may be shown only through the frame its oEmbed answer gives, unchanged: ' +
        'with its watermark, its title and its credit line, and with the link back to its page.</p>',
      '<p>Embedding is not a license. The picture may not be copied, downloaded, cropped or shown outside the frame, ' +
        'and may not be used in advertising or to promote a product or service. To use a picture in any other way, license it on its page.</p>',
      '<p>The library may stop serving any embedded picture at any time, and the frame then shows that the picture is not available.</p>',
      `<p><a href="${escapeHtml(publicUrl)}/">The library</a></p>`,
      '</main>',
    ].join('\n'),
  );
}
