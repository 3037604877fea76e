import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BoardsService } from '../boards/boards.service.js';
import { csrfCheckFailed, signInRequired } from './web.errors.js';
import { preferredLanguage } from '../platform/http/language.js';
import { SessionCookie } from './web-cookies.js';
import { formFields, sameToken } from './web-forms.js';
import { contentSecurityPolicy, pageHeaders } from './web-page-policy.js';
import type { WebSession, WebSessions } from './web-sessions.service.js';
import type { SiteFiles } from './web-static.js';
import type { Frame } from './web.pages.js';
import type { Reader, WebService } from './web.service.js';

/** Who a signed-in person is called on the page. */
export interface WebPeople {
  findById(id: number): Promise<{ username: string; first_name: string | null; last_name: string | null } | undefined>;
  findByIds(ids: readonly number[]): Promise<Map<number, { first_name: string | null; last_name: string | null; username: string }>>;
}

/** A page's request as its route reads it: the session, the reader the services shape their answers for, the page's frame. */
export interface PageContext {
  session: WebSession | undefined;
  reader: Reader;
  frame: Frame;
}

/** A form's checked session (its CSRF token matched), its signed-in user and its fields. */
export interface CheckedForm {
  session: WebSession;
  user: NonNullable<WebSession['user']>;
  form: Record<string, string>;
}

/**
 * What every page route shares: the person behind a request, the frame of their page, sending
 * a page with its policy, sending a signed-out person to sign in, and checking a form.
 */
export class WebSite {
  readonly cookie: SessionCookie;
  /** The download history's download_source for downloads made here: the site, by its host name (the API's are `api`). */
  readonly siteName: string;
  private readonly headers: Record<string, string>;

  constructor(
    private readonly sessions: WebSessions,
    private readonly people: WebPeople,
    readonly files: SiteFiles,
    /** The public base URL (no trailing slash): display and delivery URIs live there. */
    readonly publicUrl: string,
  ) {
    this.cookie = new SessionCookie(publicUrl);
    this.siteName = new URL(publicUrl).host;
    this.headers = pageHeaders(contentSecurityPolicy(publicUrl));
  }

  async context(request: FastifyRequest, title: string): Promise<PageContext> {
    const session = await this.sessions.read(this.cookie.of(request));
    const language = preferredLanguage(request.headers['accept-language']);
    const user = session?.user;
    const person = user ? await this.people.findById(user.userId) : undefined;
    const name = person ? [person.first_name, person.last_name].filter(Boolean).join(' ') || person.username : undefined;
    return {
      session,
      reader: { language, user },
      frame: { ...this.frame(title, language), userName: name, csrfToken: session?.csrfToken, path: request.url },
    };
  }

  /** A page's frame for no one in particular (an error page). */
  frame(title: string, language = 'en'): Frame {
    const { css, script, icon } = this.files;
    return { title, userName: undefined, csrfToken: undefined, path: '/', stylesheet: css.path, script: script.path, icon: icon.path, language };
  }

  send(reply: FastifyReply, status: number, body: string): FastifyReply {
    return reply.code(status).headers(this.headers).send(body);
  }

  /** The signed-in person of a page that needs one; otherwise the browser goes to sign in and comes back. */
  requireUser(context: PageContext, reply: FastifyReply, path: string): NonNullable<WebSession['user']> | undefined {
    const user = context.session?.user;
    if (!user) {
      void reply.redirect(`/signin?return=${encodeURIComponent(path)}`, 303);
      return undefined;
    }
    return user;
  }

  /** A form's session and its CSRF token, checked; the signed-in user. */
  async formUser(request: FastifyRequest): Promise<CheckedForm> {
    const form = formFields(request.body);
    const session = await this.sessions.read(this.cookie.of(request));
    if (!session || typeof form.csrf !== 'string' || !sameToken(form.csrf, session.csrfToken)) {
      throw csrfCheckFailed('This form has expired or did not come from this site. Go back, reload the page and try again.');
    }
    if (!session.user) throw signInRequired('Your session has ended. Sign in again.');
    return { session, user: session.user, form };
  }
}

/** What each group of page routes is given. */
export interface WebPageRoutesOptions {
  site: WebSite;
  web: WebService;
  sessions: WebSessions;
  boards: BoardsService;
}
