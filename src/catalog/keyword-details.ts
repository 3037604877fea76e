/**
 * What a read of many assets knows of their keywords: each keyword's details (text, type,
 * entity URIs and types, translations) parsed once and shared by every record that shows it.
 *
 * A scan of the whole store reads each asset's keyword links, fourteen or so an asset; joined to
 * the keywords table, every link brought its keyword's five columns again and three JSON texts to
 * parse, which was a third of the scan's time and most of its garbage. A handful of keywords
 * carry most links (at 200,000 synthetic assets the commonest 5,000 of 198,000 carry 70%), so
 * one scan keeps the keywords it has read and asks the store only for those it has not.
 *
 * It lives for one read (a scan, or one page of a change feed): a keyword that changes later
 * is in the change log, and the reader following the log reads the assets that show it again
 * with a memo of its own. It holds about `capacity` keywords: when a page's new ones would not
 * fit it forgets them all first, which bounds the memory and keeps the common ones (they are
 * read again with that page), and never forgets a keyword the page being read needs.
 */
export interface KeywordDetails {
  text: string;
  type: string | null;
  entity_uris: string[];
  entity_types: string[];
  translations: Record<string, string>;
}

export interface KeywordDetailRow {
  id: number;
  text: string;
  type: string | null;
  entity_uris: string | null;
  entity_types: string | null;
  translations: string | null;
}

const DEFAULT_CAPACITY = 100_000;

const parsedOr = <T>(text: string | null, fallback: T): T => (text ? (JSON.parse(text) as T) : fallback);

export class KeywordMemo {
  private readonly byId = new Map<number, KeywordDetails>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  get(id: number): KeywordDetails | undefined {
    return this.byId.get(id);
  }

  /**
   * The ids among a page's keywords that are not known yet, each once: the page then reads
   * those and remembers them. Makes room first, so nothing the page needs is forgotten before
   * the page is built.
   */
  missing(ids: readonly number[]): number[] {
    let wanted = this.unknown(ids);
    if (this.byId.size + wanted.length > this.capacity) {
      this.byId.clear();
      wanted = this.unknown(ids);
    }
    return wanted;
  }

  private unknown(ids: readonly number[]): number[] {
    const wanted = new Set<number>();
    for (const id of ids) if (!this.byId.has(id)) wanted.add(id);
    return [...wanted];
  }

  /** Keeps a row of the keywords table, parsed. */
  remember(row: KeywordDetailRow): KeywordDetails {
    const details: KeywordDetails = {
      text: row.text,
      type: row.type,
      entity_uris: parsedOr(row.entity_uris, []),
      entity_types: parsedOr(row.entity_types, []),
      translations: parsedOr(row.translations, {}),
    };
    this.byId.set(row.id, details);
    return details;
  }
}
