import { describe, expect, it } from 'vitest';
import { escapeHtml } from '../../src/platform/http/escape-html.js';

describe('escapeHtml', () => {
  it('escapes the five characters that matter in text and quoted attributes', () => {
    expect(escapeHtml(`<a href="x">Tom & 'Jerry'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;Tom &amp; &#39;Jerry&#39;&lt;/a&gt;');
  });

  it('leaves other text as it is, each escape applied once', () => {
    expect(escapeHtml('Zürich — 100% &amp;')).toBe('Zürich — 100% &amp;amp;');
  });
});
