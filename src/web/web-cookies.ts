import type { FastifyReply, FastifyRequest } from 'fastify';

const SESSION_DAYS = 30;

/** The browser's session cookie: its name, and how it is set and cleared. */
export class SessionCookie {
  readonly name: string;
  private readonly secure: boolean;

  /** `publicUrl` decides whether the cookie is Secure (an https site). */
  constructor(publicUrl: string) {
    this.secure = publicUrl.startsWith('https:');
    // A Secure cookie may carry the __Host- prefix: the browser then refuses it from any subdomain or path.
    this.name = this.secure ? '__Host-stockroom-session' : 'stockroom-session';
  }

  /** The session id the request's cookie carries, if any. */
  of(request: FastifyRequest): string | undefined {
    return request.cookies[this.name];
  }

  set(reply: FastifyReply, id: string): void {
    reply.setCookie(this.name, id, { path: '/', httpOnly: true, secure: this.secure, sameSite: 'lax', maxAge: SESSION_DAYS * 24 * 3600 });
  }

  clear(reply: FastifyReply): void {
    reply.clearCookie(this.name, { path: '/', httpOnly: true, secure: this.secure, sameSite: 'lax' });
  }
}
