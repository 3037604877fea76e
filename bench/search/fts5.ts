import SqliteDatabase from 'better-sqlite3';
import type { IndexDocument } from '../../src/search/engine/types.js';
import { ASSET_INDEX_SCHEMA } from '../../src/search/search-documents.js';

/*
 * The reference: SQLite FTS5 over the same search documents. One contentless FTS5 table holds
 * the text fields (title, caption, keywords, people), ranked by bm25() with the field weights
 * of ASSET_INDEX_SCHEMA; a plain table keyed by the same rowid holds the filter and facet
 * columns. A query is what one would write by hand for the same answer:
 *   - the page:  MATCH (every word — any of its terms — AND) + filters, ORDER BY bm25 LIMIT/OFFSET;
 *   - the total: COUNT(*) over the same match set;
 *   - a facet:   GROUP BY the column over the same match set, most frequent first.
 */

const TEXT_COLUMNS = ['title', 'caption', 'keywords', 'people'] as const;
const FILTER_COLUMNS = ['asset_family', 'orientation', 'graphical_style'] as const;
const FACET_COLUMNS = ['artist', 'location'] as const;

export type FtsFilterColumn = (typeof FILTER_COLUMNS)[number];
export type FtsFacetColumn = (typeof FACET_COLUMNS)[number];

export interface FtsQuery {
  /** an FTS5 query: every term and phrase quoted (a word with variants: its terms OR-ed in parentheses), joined by AND */
  match: string;
  /** column → accepted values (any of) */
  filters: Partial<Record<FtsFilterColumn, readonly string[]>>;
  offset: number;
  limit: number;
  facets: readonly FtsFacetColumn[];
  facetLimit: number;
}

export interface FtsResult {
  total: number;
  ids: string[];
  facets: Record<string, Array<{ value: string; count: number }>>;
}

/**
 * Between the values of a list field (keywords, people): a token no query has, so that a quoted
 * phrase never matches across two values, as in the index.
 */
const VALUE_SEPARATOR = ' zzvalueseparatorzz ';

const first = (values: readonly string[] | undefined): string | null => values?.[0] ?? null;

export class Fts5Reference {
  private readonly db: SqliteDatabase.Database;
  private readonly insertText: SqliteDatabase.Statement;
  private readonly insertColumns: SqliteDatabase.Statement;
  private readonly idsOf: SqliteDatabase.Statement;
  private readonly statements = new Map<string, SqliteDatabase.Statement>();
  private readonly bm25: string;
  private rows = 0;

  constructor(file: string) {
    this.db = new SqliteDatabase(file);
    this.db.pragma('journal_mode = OFF');
    this.db.pragma('synchronous = OFF');
    this.db.pragma('cache_size = -262144');
    this.db.pragma('mmap_size = 4294967296');
    this.db.exec(`
      create virtual table fts using fts5(${TEXT_COLUMNS.join(', ')}, content = '', tokenize = 'unicode61 remove_diacritics 2');
      create table docs (n integer primary key, id text not null, ${[...FILTER_COLUMNS, ...FACET_COLUMNS].map((c) => `${c} text`).join(', ')});
    `);
    this.insertText = this.db.prepare(`insert into fts (rowid, ${TEXT_COLUMNS.join(', ')}) values (?, ?, ?, ?, ?)`);
    this.insertColumns = this.db.prepare(`insert into docs values (?, ?, ${[...FILTER_COLUMNS, ...FACET_COLUMNS].map(() => '?').join(', ')})`);
    this.idsOf = this.db.prepare('select id from docs where n = ?').pluck();
    this.bm25 = `bm25(fts, ${TEXT_COLUMNS.map((c) => ASSET_INDEX_SCHEMA.textFields[c] ?? 1).join(', ')})`;
  }

  /** Adds documents (one transaction). */
  add(docs: readonly IndexDocument[]): void {
    this.db.transaction(() => {
      for (const doc of docs) {
        const n = ++this.rows;
        const text = (field: string) => {
          const value = doc.text[field];
          return typeof value === 'string' ? value : (value ?? []).join(VALUE_SEPARATOR);
        };
        this.insertText.run(n, ...TEXT_COLUMNS.map(text));
        this.insertColumns.run(
          n,
          doc.id,
          first(doc.keywords.asset_family),
          first(doc.keywords.orientation),
          first(doc.keywords.graphical_style),
          first(doc.keywords.artist),
          first(doc.keywords.location),
        );
      }
    })();
  }

  /** Merges the FTS5 segments into one b-tree, FTS5's own advice once a bulk load is done. */
  optimize(): void {
    this.db.exec(`insert into fts (fts) values ('optimize')`);
  }

  private statement(sql: string): SqliteDatabase.Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  search(query: FtsQuery): FtsResult {
    const where: string[] = [];
    const values: unknown[] = [query.match];
    for (const column of FILTER_COLUMNS) {
      const accepted = query.filters[column];
      if (!accepted) continue;
      where.push(`d.${column} in (${accepted.map(() => '?').join(', ')})`);
      values.push(...accepted);
    }
    const filtered = where.length > 0;
    const conditions = ['fts match ?', ...where].join(' and ');
    const from = filtered ? 'fts join docs d on d.n = fts.rowid' : 'fts';

    const rowids = this.statement(`select fts.rowid from ${from} where ${conditions} order by ${this.bm25} limit ? offset ?`)
      .pluck()
      .all(...values, query.limit, query.offset) as number[];
    const ids = rowids.map((n) => this.idsOf.get(n) as string);
    const total = this.statement(`select count(*) from ${from} where ${conditions}`).pluck().get(...values) as number;
    const facets: FtsResult['facets'] = {};
    for (const column of query.facets) {
      facets[column] = this.statement(
        `select d.${column} as value, count(*) as count from fts join docs d on d.n = fts.rowid where ${conditions}
         and d.${column} is not null group by d.${column} order by count desc limit ?`,
      ).all(...values, query.facetLimit) as Array<{ value: string; count: number }>;
    }
    return { total, ids, facets };
  }

  close(): void {
    this.db.close();
  }
}
