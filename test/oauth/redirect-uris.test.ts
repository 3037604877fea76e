import { describe, expect, it } from 'vitest';
import {
  checkRegistrableRedirectUri,
  checkRequestedRedirectUri,
  isLocalHostname,
  parseRedirectUri,
  withParameters,
} from '../../src/oauth/redirect-uris.js';

const REGISTERED = ['https://app.example.com/callback', 'https://app.example.com/oauth?tenant=acme&v=2'];
const allowed = (uri: string, registered: readonly string[] = REGISTERED) => checkRequestedRedirectUri(uri, registered).ok;

describe('redirect URI rules', () => {
  describe('a registered URI matches', () => {
    it('exactly', () => {
      expect(allowed('https://app.example.com/callback')).toBe(true);
    });

    it('with extra query parameters that are not registered', () => {
      expect(allowed('https://app.example.com/callback?lang=de&session=42')).toBe(true);
    });

    it('only when every registered query parameter is present with the same value, in any order', () => {
      expect(allowed('https://app.example.com/oauth?v=2&tenant=acme&extra=1')).toBe(true);
      expect(allowed('https://app.example.com/oauth?tenant=acme')).toBe(false);
      expect(allowed('https://app.example.com/oauth?tenant=evil&v=2')).toBe(false);
    });

    it('only with the same scheme, host, port and path', () => {
      expect(allowed('https://evil.example.com/callback')).toBe(false);
      expect(allowed('https://app.example.com.evil.net/callback')).toBe(false);
      expect(allowed('https://app.example.com:8443/callback')).toBe(false);
      expect(allowed('https://app.example.com/callback/more')).toBe(false);
      expect(allowed('https://app.example.com/Callback')).toBe(false);
      expect(allowed('https://app.example.com/callback/../elsewhere')).toBe(false);
    });

    it('with the host in any case and the default port written out (as a browser reads them)', () => {
      expect(allowed('https://APP.example.com/callback')).toBe(true);
      expect(allowed('https://app.example.com:443/callback')).toBe(true);
    });
  });

  describe('a local host name needs neither registration nor HTTPS', () => {
    it.each([
      'http://localhost/callback',
      'http://localhost:51234/any/path?x=1',
      'https://localhost:8443/cb',
      'http://127.0.0.1:8080/cb',
      'http://127.45.6.7/cb',
      'http://[::1]:9000/cb',
    ])('%s', (uri) => {
      expect(allowed(uri, [])).toBe(true);
    });

    it('but a name that only looks local is not local', () => {
      expect(isLocalHostname('localhost.evil.com')).toBe(false);
      expect(isLocalHostname('notlocalhost')).toBe(false);
      expect(isLocalHostname('128.0.0.1')).toBe(false);
      expect(allowed('http://localhost.evil.com/cb', [])).toBe(false);
      expect(allowed('http://10.0.0.1/cb', [])).toBe(false);
    });

    it('and *.localhost is not counted local (not every resolver maps it to this machine)', () => {
      expect(isLocalHostname('app.localhost')).toBe(false);
      expect(allowed('http://app.localhost:3000/cb', [])).toBe(false);
    });

    it('but not for a client held to exact redirects (the catalogue browser’s own): only its registered URI, as registered', () => {
      const callback = ['https://stockroom.example/signin/callback'];
      expect(checkRequestedRedirectUri('https://stockroom.example/signin/callback', callback, { exact: true })).toMatchObject({ ok: true, registered: true });
      for (const uri of ['http://localhost:4000/cb', 'http://127.0.0.1/cb', 'https://stockroom.example/signin/callback?x=1', 'https://stockroom.example/signin/callback/']) {
        expect(checkRequestedRedirectUri(uri, callback, { exact: true })).toMatchObject({ ok: false });
      }
    });

    it('tells a registered URI from a local one that nobody registered', () => {
      expect(checkRequestedRedirectUri('http://localhost:4000/cb', [])).toMatchObject({ ok: true, registered: false });
      expect(checkRequestedRedirectUri('http://localhost:4000/cb?x=1', ['http://localhost:4000/cb'])).toMatchObject({ ok: true, registered: true });
    });
  });

  describe('every other redirect URI uses HTTPS', () => {
    it('even when registered', () => {
      expect(allowed('http://app.example.com/callback', ['http://app.example.com/callback'])).toBe(false);
      expect(checkRegistrableRedirectUri('http://app.example.com/callback')).toMatchObject({ ok: false, reason: expect.stringContaining('https') });
    });

    it('and not some other scheme', () => {
      expect(parseRedirectUri('ftp://app.example.com/cb').ok).toBe(false);
      expect(parseRedirectUri('javascript:alert(1)').ok).toBe(false);
      expect(parseRedirectUri('com.example.app:/callback').ok).toBe(false);
    });
  });

  describe('is never', () => {
    it('a URI with a fragment, even an empty one', () => {
      expect(parseRedirectUri('https://app.example.com/callback#x')).toMatchObject({ ok: false, reason: expect.stringContaining('fragment') });
      expect(parseRedirectUri('https://app.example.com/callback#').ok).toBe(false);
      expect(allowed('http://localhost/cb#frag', [])).toBe(false);
    });

    it('a URI with user information', () => {
      expect(parseRedirectUri('https://user@app.example.com/callback').ok).toBe(false);
      expect(parseRedirectUri('https://user:pw@app.example.com/callback').ok).toBe(false);
      expect(allowed('https://app.example.com\\@evil.com/callback')).toBe(false);
    });

    it('a malformed or relative URI', () => {
      for (const uri of ['/callback', 'callback', 'https://', 'https:///path', 'https://exa mple.com/', '', 'https://app.example.com/ä']) {
        expect(parseRedirectUri(uri).ok, uri).toBe(false);
      }
    });

    it('a URI carrying a parameter that the response adds (code, state, error)', () => {
      expect(allowed('https://app.example.com/callback?code=planted')).toBe(false);
      expect(allowed('http://localhost/cb?state=x', [])).toBe(false);
      expect(checkRegistrableRedirectUri('https://app.example.com/cb?error=1').ok).toBe(false);
    });

    it('an overlong URI', () => {
      expect(parseRedirectUri(`https://app.example.com/${'a'.repeat(2000)}`).ok).toBe(false);
    });
  });

  describe('parameters added to a redirect URI', () => {
    it('go after its own query, which is kept as it was, percent-encoded', () => {
      expect(withParameters('https://app.example.com/cb?tenant=a%20b&x=1', { code: 'c/d+e', state: 'hello world&more' }, 'query')).toBe(
        'https://app.example.com/cb?tenant=a%20b&x=1&code=c%2Fd%2Be&state=hello%20world%26more',
      );
    });

    it('start a query when there is none, and leave out absent values', () => {
      expect(withParameters('https://app.example.com/cb', { code: 'abc', state: undefined }, 'query')).toBe('https://app.example.com/cb?code=abc');
      expect(withParameters('https://app.example.com/cb?', { code: 'abc' }, 'query')).toBe('https://app.example.com/cb?code=abc');
    });

    it('go into the fragment for the implicit grant', () => {
      expect(withParameters('https://app.example.com/cb?x=1', { access_token: 't', token_type: 'Bearer' }, 'fragment')).toBe(
        'https://app.example.com/cb?x=1#access_token=t&token_type=Bearer',
      );
    });

    it('come back out as they went in', () => {
      const state = 'ü ?&=#%+/';
      const url = new URL(withParameters('https://app.example.com/cb?x=1', { state }, 'query'));
      expect(url.searchParams.get('state')).toBe(state);
      expect(url.searchParams.get('x')).toBe('1');
      const fragment = new URLSearchParams(new URL(withParameters('https://app.example.com/cb', { state }, 'fragment')).hash.slice(1));
      expect(fragment.get('state')).toBe(state);
    });
  });
});
