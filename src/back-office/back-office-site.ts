import { createHash } from 'node:crypto';
import fs from 'node:fs';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { StaffRole, UserAccount } from '../oauth/users.service.js';
import type { BrowserSessions } from '../web/browser-sessions.js';
import { sameToken } from '../web/web-forms.js';
import { contentSecurityPolicy, pageHeaders } from '../web/web-page-policy.js';
import { formExpired, staffSignInRequired } from './back-office.errors.js';
import { requireRole, mayAct, type Actor, type Staff } from './staff-policy.js';

/** Who the back office asks for a signed-in person's account and role (the OAuth module's users). */
export interface StaffDirectory {
  account(id: number): Promise<UserAccount | undefined>;
}

/** A section of the back office, shown in its header to the roles that may enter it. */
export interface BackOfficeSection {
  /** what the page's `section` names to mark its link as current */
  key: string;
  label: string;
  href: string;
  /** the least role that may enter */
  role: StaffRole;
  /** where it goes in the header, lowest first */
  order: number;
}

/** A page or form of the back office with the least role it takes: the access matrix reads these. */
export interface StaffRoute {
  method: 'GET' | 'POST';
  /** Fastify's pattern, e.g. `/admin/applications/:id` */
  url: string;
  role: StaffRole;
}

/** Where the back office lives: its routes are registered in a context with this prefix. */
export const BACK_OFFICE_PREFIX = '/admin';

/**
 * A full path of the back office (`/admin/audit`) as a route of its prefixed context
 * (`/audit`; the front page `/admin` is the empty path).
 */
export function withinBackOffice(url: string): string {
  if (url !== BACK_OFFICE_PREFIX && !url.startsWith(`${BACK_OFFICE_PREFIX}/`)) throw new Error(`a back-office route lives under ${BACK_OFFICE_PREFIX}: ${url}`);
  return url.slice(BACK_OFFICE_PREFIX.length);
}

/** What every back-office page is framed with. */
export interface StaffFrame {
  title: string;
  /** the section whose link is marked as current */
  section: string | undefined;
  /** the signed-in member of staff; undefined on an error page for someone else */
  actor: Staff | undefined;
  csrfToken: string | undefined;
  path: string;
  stylesheet: string;
  icon: string;
  /** the sections the actor may enter, in order */
  sections: readonly BackOfficeSection[];
}

/** A page's request, checked: its member of staff and frame. */
export interface StaffPage {
  actor: Staff;
  frame: StaffFrame;
}

/** A form's request, checked (its CSRF token matched, the role reached): its member of staff and fields. */
export interface StaffForm {
  actor: Staff;
  form: Record<string, string>;
  /** the session's form token, for a page the answer shows (a secret shown once) */
  csrfToken: string;
}

/** The back office's stylesheet, served under a name that changes with its content. */
export interface BackOfficeFiles {
  css: { body: Buffer; path: string };
}

export function backOfficeFiles(): BackOfficeFiles {
  const body = fs.readFileSync(new URL('./static/back-office.css', import.meta.url));
  const version = createHash('sha256').update(body).digest('hex').slice(0, 12);
  return { css: { body, path: `/admin/static/back-office.css?v=${version}` } };
}

/**
 * What every back-office route shares: the signed-in member of staff behind a request (through
 * the catalogue browser's session), the role a page or form takes, the frame of a page, and
 * sending a page under the strict page policy. A route is declared with the least role it
 * takes (`page`, `form`), so the check cannot be left out and the access matrix can list every
 * route; the services check the role again.
 */
export class StaffSite {
  /** Every page and form, as declared: the access-matrix test covers each. */
  readonly routes: StaffRoute[] = [];
  private readonly sections: BackOfficeSection[] = [];
  /** The strict page policy's headers every page is sent with. */
  readonly pageHeaders: Readonly<Record<string, string>>;
  /** A request's frame once its actor is known: an error page shows the same header. */
  private readonly frames = new WeakMap<FastifyRequest, StaffFrame>();

  constructor(
    private readonly sessions: BrowserSessions,
    private readonly directory: StaffDirectory,
    readonly files: BackOfficeFiles,
    publicUrl: string,
  ) {
    this.pageHeaders = pageHeaders(contentSecurityPolicy(publicUrl));
  }

  /** Adds a section to the header (a group of pages calls this when it registers). */
  addSection(section: BackOfficeSection): void {
    this.sections.push(section);
    this.sections.sort((a, b) => a.order - b.order);
  }

  /** The sections a role may enter. */
  sectionsFor(role: StaffRole): BackOfficeSection[] {
    return this.sections.filter((section) => mayAct(role, section.role));
  }

  /**
   * A page (GET) that takes at least `role`. A signed-out visitor is sent to sign in and back;
   * a person without the role gets the 403 page (StaffOnly, AdminOnly).
   */
  page(
    app: FastifyInstance,
    spec: { url: string; role: StaffRole; title: string; section?: string },
    handler: (request: FastifyRequest, reply: FastifyReply, page: StaffPage) => Promise<FastifyReply>,
  ): void {
    this.routes.push({ method: 'GET', url: spec.url, role: spec.role });
    app.get(withinBackOffice(spec.url), { schema: { hide: true } }, async (request, reply) => {
      const session = await this.sessions.of(request);
      const account = session?.userId === undefined ? undefined : await this.directory.account(session.userId);
      if (!session || !account || account.disabledAt !== null) return reply.header('cache-control', 'no-store').redirect(this.sessions.signInPath(request.url), 303);
      const actor = this.remember(request, { id: account.id, username: account.username, role: account.role }, session.csrfToken, spec);
      return handler(request, reply, { actor: requireRole(actor, spec.role), frame: this.frames.get(request)! });
    });
  }

  /** A form (POST) that takes at least `role`: its CSRF token is checked first, then the person and the role. */
  form(
    app: FastifyInstance,
    spec: { url: string; role: StaffRole; title?: string; section?: string },
    handler: (request: FastifyRequest, reply: FastifyReply, form: StaffForm) => Promise<FastifyReply>,
  ): void {
    this.routes.push({ method: 'POST', url: spec.url, role: spec.role });
    app.post(withinBackOffice(spec.url), { schema: { hide: true } }, async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, string>;
      const session = await this.sessions.of(request);
      if (!session || typeof form.csrf !== 'string' || !sameToken(form.csrf, session.csrfToken)) throw formExpired();
      const account = session.userId === undefined ? undefined : await this.directory.account(session.userId);
      if (!account || account.disabledAt !== null) throw staffSignInRequired();
      const actor = this.remember(request, { id: account.id, username: account.username, role: account.role }, session.csrfToken, { title: spec.title ?? 'Back office', section: spec.section });
      return handler(request, reply, { actor: requireRole(actor, spec.role), form, csrfToken: session.csrfToken });
    });
  }

  /** Whether the request comes with a session at all: a large form body is read only then. */
  async hasSession(request: FastifyRequest): Promise<boolean> {
    return (await this.sessions.of(request)) !== undefined;
  }

  /** The frame of a request whose actor is known; undefined otherwise. */
  frameOf(request: FastifyRequest): StaffFrame | undefined {
    return this.frames.get(request);
  }

  /** A frame for no one in particular (an error before the person is known). */
  anonymousFrame(title: string, path: string): StaffFrame {
    return { title, section: undefined, actor: undefined, csrfToken: undefined, path, stylesheet: this.files.css.path, icon: '/favicon.ico', sections: [] };
  }

  send(reply: FastifyReply, status: number, body: string): FastifyReply {
    return reply.code(status).headers(this.pageHeaders).send(body);
  }

  /** A download (an export), under the same page policy as the pages: never kept by a shared cache. */
  sendDownload(reply: FastifyReply, file: { name: string; contentType: string; body: string }): FastifyReply {
    return reply
      .code(200)
      .headers(this.pageHeaders)
      .headers({ 'content-type': file.contentType, 'content-disposition': `attachment; filename="${file.name}"`, 'cache-control': 'private, no-store' })
      .send(file.body);
  }

  /** The frame of a page for a known person (a customer, role null, gets the header without sections). */
  frameFor(actor: Actor, csrfToken: string, spec: { title: string; section?: string | undefined; path: string }): StaffFrame {
    const staff = actor.role === null ? undefined : (actor as Staff);
    return {
      title: spec.title,
      section: spec.section,
      actor: staff,
      csrfToken,
      path: spec.path,
      stylesheet: this.files.css.path,
      icon: '/favicon.ico',
      sections: staff ? this.sectionsFor(staff.role) : [],
    };
  }

  private remember(request: FastifyRequest, actor: Actor, csrfToken: string, spec: { title: string; section?: string | undefined }) {
    this.frames.set(request, this.frameFor(actor, csrfToken, { ...spec, path: request.url }));
    return actor;
  }
}
