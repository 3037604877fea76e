import { invalidParameter } from '../platform/http/errors.js';
import { utcDateTime } from '../platform/http/date-time.js';
import { readIsoDate } from '../platform/http/iso-date.js';
import { isUniqueViolation } from '../platform/db/unique-violation.js';
import { isEmailAddress } from '../platform/http/email-address.js';
import type { AssetSendsRepository } from './asset-sends.repository.js';

/** One send: the assets of a board, sent by a user through a client to an email address. */
export interface AssetSend {
  clientId: number;
  userId: number;
  boardId: string;
  emailAddress: string;
  assetIds: readonly string[];
}

/** What the boards module records a send with. */
export interface AssetSendRecorder {
  recordSend(send: AssetSend): Promise<{ emailAddress: string; assetsSent: number }>;
}

/** The feed's query, as the route's schema took it (a date-time with a zone, a count from 1 to 100). */
export interface SendEventsQuery {
  last_offset?: string | undefined;
  event_count?: number | undefined;
}

export const EVENT_COUNT = { default: 50, max: 100 } as const;
/** Two sends at the same microsecond: the later tries again with the next one. */
const ATTEMPTS = 5;

/** Microseconds since the epoch as the feed writes a time: YYYY-MM-DDTHH:MM:SS.ffffffZ. */
export function timeText(micros: number): string {
  const millis = Math.floor(micros / 1000);
  const fraction = String(micros % 1000).padStart(3, '0');
  return `${new Date(millis).toISOString().slice(0, 23)}${fraction}Z`;
}

function microsOfStored(text: string): number {
  return Date.parse(`${text.slice(0, 23)}Z`) * 1000 + Number(text.slice(23, 26));
}

/**
 * A date-time with a zone a client gives as last_offset, in microseconds since the epoch (finer
 * digits are dropped): read by the one date reader. The feed's offsets are paging cursors of
 * microseconds, so a date alone or a time without a zone is no offset.
 */
export function parseOffset(raw: string): number | undefined {
  const read = readIsoDate(raw);
  if (!read || read.dateOnly || !read.zoned) return undefined;
  return read.millis * 1000 + read.micros;
}

function checkedEmail(raw: string): string {
  const email = raw.trim();
  if (!isEmailAddress(email)) {
    throw invalidParameter('email_address', `'${email.slice(0, 80)}' is not an email address`);
  }
  return email;
}

/**
 * Assets sent to people (a board sent to an email address), and the feed a client reads them
 * from. Each send's assets get consecutive microsecond times after the client's latest, so the
 * feed's offset (a time) never falls inside a tie and a page never loses the rest of one.
 */
export class AssetSendsService implements AssetSendRecorder {
  constructor(private readonly deps: { repository: AssetSendsRepository; now: () => Date }) {}

  async recordSend(send: AssetSend): Promise<{ emailAddress: string; assetsSent: number }> {
    const emailAddress = checkedEmail(send.emailAddress);
    const assetIds = [...new Set(send.assetIds)];
    if (assetIds.length === 0) return { emailAddress, assetsSent: 0 };
    const rows = assetIds.map((assetId) => ({ client_id: send.clientId, user_id: send.userId, board_id: send.boardId, asset_id: assetId, email_address: emailAddress }));
    for (let attempt = 1; ; attempt++) {
      const nowMicros = this.deps.now().getTime() * 1000;
      try {
        await this.deps.repository.insertSend(send.clientId, rows, (index, latest) => {
          const base = latest === undefined ? nowMicros : Math.max(nowMicros, microsOfStored(latest) + 1);
          return timeText(base + index);
        });
        return { emailAddress, assetsSent: assetIds.length };
      } catch (error) {
        if (!isUniqueViolation(error) || attempt === ATTEMPTS) throw error;
      }
    }
  }

  /** GET /asset-management/assets/send-events: the client's sends after last_offset, oldest first. */
  async feed(clientId: number, query: SendEventsQuery) {
    const count = query.event_count ?? EVENT_COUNT.default;
    let after: string | undefined;
    if (query.last_offset !== undefined) {
      const micros = parseOffset(query.last_offset);
      if (micros === undefined) {
        throw invalidParameter('last_offset', `'${query.last_offset.slice(0, 60)}' is not a date-time with a zone (such as 2026-03-09T10:00:00.000000Z)`);
      }
      after = timeText(Math.max(0, micros));
    }
    const rows = await this.deps.repository.after(clientId, after, count);
    return {
      last_offset: rows.length > 0 ? rows[rows.length - 1]!.sent_at : (after ?? null),
      asset_send_events: rows.map((row) => ({ timestamp: utcDateTime(row.sent_at), asset_id: row.asset_id, email_address: row.email_address })),
    };
  }
}
