import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  PAGE_STYLE_HASH,
  contentSecurityPolicy,
  formActionSource,
  htmlPageHeaders,
  renderErrorPage,
  renderSignInPage,
  SITE_HEADER,
  type SignInPageView,
} from '../../src/oauth/sign-in-page.js';

const VIEW: SignInPageView = {
  clientName: 'Lightbox Pro',
  redirectUri: 'https://client.example.test/callback',
  action: 'auth',
  parameters: [
    ['client_id', 'key-abc'],
    ['response_type', 'code'],
    ['redirect_uri', 'https://client.example.test/callback'],
    ['state', 'xyz'],
  ],
  csrfToken: 'token-123',
};

function inlineStyles(html: string): string[] {
  return [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((match) => match[1] ?? '');
}

describe('Content-Security-Policy', () => {
  it('allows exactly the one inline style, by its SHA-256', () => {
    for (const html of [renderSignInPage(VIEW), renderErrorPage('Unknown client')]) {
      const styles = inlineStyles(html);
      expect(styles).toHaveLength(1);
      expect(`sha256-${createHash('sha256').update(styles[0] ?? '').digest('base64')}`).toBe(PAGE_STYLE_HASH);
    }
    expect(contentSecurityPolicy()).toContain(`style-src '${PAGE_STYLE_HASH}'`);
  });

  it('allows no script, no framing and no base URL', () => {
    const policy = contentSecurityPolicy('https://client.example.test/cb');
    expect(policy).toBe(
      `default-src 'none'; style-src '${PAGE_STYLE_HASH}'; img-src 'self' data:; form-action 'self' https://client.example.test; frame-ancestors 'none'; base-uri 'none'`,
    );
  });

  it('lets the form lead only to itself when there is no redirect URI', () => {
    expect(contentSecurityPolicy()).toContain("form-action 'self';");
  });

  it.each([
    ['https://client.example.test:8443/cb?x=1#f', 'https://client.example.test:8443'],
    ['https://client.example.test:443/cb', 'https://client.example.test'],
    ['http://127.0.0.1:51234/callback', 'http://127.0.0.1:51234'],
    ['http://localhost/cb', 'http://localhost'],
    ['com.example.app:/oauth2redirect', 'com.example.app:'],
    ['http://[::1]:8080/cb', 'http:'],
    ['not a uri', undefined],
  ])('takes the form-action source of %s as %s', (uri, source) => {
    expect(formActionSource(uri)).toBe(source);
  });

  it('comes with the other page headers', () => {
    expect(htmlPageHeaders('https://client.example.test/cb')).toEqual({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': contentSecurityPolicy('https://client.example.test/cb'),
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
  });
});

describe('renderSignInPage', () => {
  it('names the application and what allowing it means', () => {
    const html = renderSignInPage(VIEW);
    expect(html).toContain('<h1>Sign in to allow Lightbox Pro to use your account</h1>');
    expect(html).toContain('search the catalogue and license assets');
    expect(html).toContain('you go back to client.example.test');
    expect(html).toMatch(/<title>[^<]*Lightbox Pro[^<]*<\/title>/);
    expect(html).toContain('<main>');
  });

  it('the site’s own client signs in to the site: the site’s header, no third-party consent wording', () => {
    const html = renderSignInPage({ ...VIEW, clientName: 'Stockroom web', firstParty: true });
    expect(html).toContain('<h1>Sign in to Stockroom</h1>');
    expect(html).toContain('<header class="top"><a class="brand" href="/">');
    expect(html).toContain('>Sign in</button>');
    expect(html).toContain('>Cancel</button>');
    expect(html).not.toMatch(/to allow|and allow|applications you trust|Stockroom web/);
    expect(html).toMatch(/<title>Sign in · Stockroom<\/title>/);
    // A third-party client's page keeps the consent wording, under the same header.
    const consent = renderSignInPage(VIEW);
    expect(consent).toContain('<header class="top">');
    expect(consent).toContain('Only allow applications you trust');
    expect(consent).toContain('>Sign in and allow</button>');
  });

  it('escapes every interpolated value', () => {
    const hostile = `"><script>alert('x')</script>`;
    const html = renderSignInPage({
      ...VIEW,
      clientName: hostile,
      redirectUri: 'https://evil"<x>.example/',
      parameters: [['state', hostile]],
      csrfToken: hostile,
      username: hostile,
      problem: { message: hostile, fields: ['username'] },
    });
    expect(html).not.toContain('<script');
    expect(html.replace(SITE_HEADER, '')).not.toContain(`"><`);
    expect(html).toContain('&quot;&gt;&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;');
  });

  it('has a labelled input per credential and carries the parameters and CSRF token as hidden fields', () => {
    const html = renderSignInPage(VIEW);
    expect(html).toContain('<form method="post" action="auth">');
    expect(html).toContain('<label for="username">Username</label>');
    expect(html).toContain('<label for="password">Password</label>');
    expect(html).toContain('<input type="hidden" name="redirect_uri" value="https://client.example.test/callback">');
    expect(html).toContain('<input type="hidden" name="csrf_token" value="token-123">');
    expect(html).not.toContain('role="alert"');
    expect(html).not.toContain('aria-invalid="true"');
  });

  it('puts the deny button after the allow button, so Enter means allow, and lets deny skip validation', () => {
    const html = renderSignInPage(VIEW);
    expect(html.indexOf('value="allow"')).toBeLessThan(html.indexOf('value="deny"'));
    expect(html).toMatch(/value="deny"[^>]*formnovalidate/);
  });

  it('ties a problem to the inputs it is about', () => {
    const html = renderSignInPage({ ...VIEW, username: 'ana', problem: { message: 'Enter your password.', fields: ['password'] } });
    expect(html).toContain('<p id="sign-in-problem" class="problem" role="alert">Enter your password.</p>');
    expect(html).toMatch(/<input id="password"[^>]* aria-invalid="true" aria-describedby="sign-in-problem">/);
    expect(html).toMatch(/<input id="username"[^>]* value="ana">/);
  });

  it('loads nothing: the site’s icon is inline; no script, no external resource, no inline style attribute', () => {
    const html = renderSignInPage({ ...VIEW, problem: { message: 'x', fields: ['username', 'password'] } });
    expect(html).toContain(SITE_HEADER);
    expect(SITE_HEADER).toMatch(/<img src="data:image\/svg\+xml;base64,/);
    expect(html.replace(SITE_HEADER, '')).not.toMatch(/<script|<link|<img|\bsrc=|\bhref=|\bstyle=|@import|url\(/);
  });
});

describe('renderErrorPage', () => {
  it('shows the escaped message and no form', () => {
    const html = renderErrorPage('redirect_uri <b>https://evil.example</b> is "not" registered');
    expect(html).toContain('redirect_uri &lt;b&gt;https://evil.example&lt;/b&gt; is &quot;not&quot; registered');
    expect(html).not.toContain('<form');
    expect(html).toMatch(/^<!doctype html>\n<html lang="en">/);
  });
});
