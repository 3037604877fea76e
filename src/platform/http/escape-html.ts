/*
 * The one HTML escaper of the server's pages (the sign-in page, the embed page and its iframe
 * snippet, the catalogue browser's template): the five characters that matter in text and in
 * quoted attribute values, so that no page can escape less than another.
 */

const HTML_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for HTML text and for single- or double-quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character] ?? character);
}
