import { invalidParameter } from './errors.js';
import { splitCsv } from './schema-types.js';

/**
 * What an endpoint lets `fields` name: sets of fields, single fields and display
 * sizes. Policies are data: each endpoint declares its catalog, one parser reads them all.
 */
export interface FieldCatalog {
  readonly fields: readonly string[];
  readonly displaySizes: readonly string[];
  /** set name → the fields and display sizes it stands for */
  readonly sets: Readonly<Record<string, readonly string[]>>;
  /** what applies without a `fields` parameter: set names, fields or sizes */
  readonly defaults: readonly string[];
  /** fields that need a bearer token */
  readonly tokenFields: readonly string[];
}

export interface FieldSelection {
  readonly fields: ReadonlySet<string>;
  /** display sizes in the catalog's order */
  readonly displaySizes: readonly string[];
  /** a token field was named explicitly: the request needs a bearer token */
  readonly requiresToken: boolean;
  /** token fields that came in through a set: returned only when a token is present */
  readonly tokenFieldsIfAuthorized: ReadonlySet<string>;
}

const CACHE_LIMIT = 2000;

/** Parses `fields` against one catalog; parsed selections are cached by their raw text. */
export class FieldSelector {
  private readonly fieldNames: ReadonlySet<string>;
  private readonly sizeNames: ReadonlySet<string>;
  private readonly tokenFields: ReadonlySet<string>;
  private readonly cache = new Map<string, FieldSelection>();

  constructor(private readonly catalog: FieldCatalog) {
    this.fieldNames = new Set(catalog.fields);
    this.sizeNames = new Set(catalog.displaySizes);
    this.tokenFields = new Set(catalog.tokenFields);
  }

  /** The names a caller may send, for documentation. */
  allowedNames(): string[] {
    return [...Object.keys(this.catalog.sets), ...this.catalog.fields, ...this.catalog.displaySizes];
  }

  select(raw: readonly string[] | string | undefined): FieldSelection {
    const key = raw === undefined ? '' : typeof raw === 'string' ? raw : raw.join(',');
    const cached = this.cache.get(key);
    if (cached) return cached;
    const names = splitCsv(raw);
    const selection = this.build(names.length > 0 ? names : this.catalog.defaults, names.length === 0);
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(key, selection);
    return selection;
  }

  private build(names: readonly string[], isDefault: boolean): FieldSelection {
    const fields = new Set<string>();
    const sizes = new Set<string>();
    const namedTokenFields = new Set<string>();
    const setTokenFields = new Set<string>();
    const add = (name: string, fromSet: boolean) => {
      if (this.sizeNames.has(name)) sizes.add(name);
      else if (this.fieldNames.has(name)) {
        fields.add(name);
        if (this.tokenFields.has(name)) (fromSet ? setTokenFields : namedTokenFields).add(name);
      } else throw invalidParameter('fields', `unknown field '${name}'`);
    };
    for (const name of names) {
      // Own properties only: `constructor` or `__proto__` are not set names.
      const members = Object.hasOwn(this.catalog.sets, name) ? this.catalog.sets[name] : undefined;
      if (members) for (const member of members) add(member, true);
      else add(name, isDefault);
    }
    return {
      fields,
      displaySizes: this.catalog.displaySizes.filter((name) => sizes.has(name)),
      requiresToken: namedTokenFields.size > 0,
      tokenFieldsIfAuthorized: new Set([...setTokenFields].filter((name) => !namedTokenFields.has(name))),
    };
  }
}
