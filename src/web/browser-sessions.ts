import { fastifyCookie } from '@fastify/cookie';
import type { FastifyRequest } from 'fastify';
import type { SessionCookie } from './web-cookies.js';
import type { WebSessions } from './web-sessions.service.js';

/** A browser's session as another server-rendered surface reads it: who is signed in, and the session's form token. */
export interface BrowserSession {
  /** The signed-in person; undefined when the session is signed out. */
  userId: number | undefined;
  /** The token every form of the session carries (the catalogue browser's and the back office's alike). */
  csrfToken: string;
}

/**
 * The catalogue browser's sign-in, lent to the other pages of this server (the back office at
 * /admin): one session cookie, one sign-in through this server's own OAuth, one CSRF token per
 * session. The reader parses the request's cookie itself, so a surface needs no cookie plugin
 * of its own.
 */
export class BrowserSessions {
  constructor(
    private readonly sessions: WebSessions,
    private readonly cookie: SessionCookie,
  ) {}

  /** The session a request's cookie names; undefined without one (or for an unknown or expired one). */
  async of(request: FastifyRequest): Promise<BrowserSession | undefined> {
    const header = request.headers.cookie;
    if (!header) return undefined;
    const cookieId = fastifyCookie.parse(header)[this.cookie.name];
    const session = await this.sessions.read(cookieId);
    return session ? { userId: session.user?.userId, csrfToken: session.csrfToken } : undefined;
  }

  /** Where a signed-out person signs in and comes back to `returnTo` (a path of this site). */
  signInPath(returnTo: string): string {
    return `/signin?return=${encodeURIComponent(returnTo)}`;
  }
}
