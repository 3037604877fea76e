import type { FastifyInstance, FastifyReply } from 'fastify';
import { warningsOf, type BulkChange, type BulkResult, type PublicationResult } from '../catalog/catalog-editing.service.js';
import type { AssetType, EditableAssetRecord, Publication, StoredKeyword } from '../catalog/catalog.records.js';
import { optionalChoice, optionalText, pageNumber, queryFields, type Fields } from './back-office-fields.js';
import { invalidField, pictureNotFound, publicationMoveRefused } from './back-office.errors.js';
import type { BackOfficeRoutesOptions } from './back-office.routes.js';
import {
  BULK_FIELDS,
  editFieldsOf,
  editPage,
  editPath,
  LISTS,
  listPage,
  type BulkOutcome,
  type EditField,
  type FormValue,
  type ListPageModel,
  type PageProblem,
} from './catalogue.pages.js';
import type { CatalogueDesk } from './catalogue-desk.service.js';
import type { Staff } from './staff-policy.js';
import type { StaffFrame } from './back-office-site.js';
import { formFile, registerFileForm } from './file-form.js';

/** A display file's bytes and type. */
export interface Picture {
  body: Buffer;
  contentType: string;
}

/** A small picture of an asset in any state, for the staff's eyes: made from its original, never reached through a public URL. */
export interface AssetPictures {
  pictureOf(assetId: string, file: 'thumb.jpg' | 'comp.jpg'): Promise<Picture | undefined>;
}

export interface CataloguePagesNeeds {
  desk: CatalogueDesk;
  pictures: AssetPictures;
  /** The strict page policy's headers (a picture is sent with them, its own type and cache rule in place of the page's). */
  pageHeaders: Readonly<Record<string, string>>;
}

const PAGE_SIZE = 50;
const PICTURE_FILES = ['thumb.jpg', 'comp.jpg'] as const;

/** What a done= in a catalogue page's address says. */
const DONE: Readonly<Record<string, string>> = {
  saved: 'Saved.',
  unchanged: 'Nothing changed.',
  published: 'Published: it is searchable and licensable now.',
  withdrawn: 'Withdrawn: clients no longer find it or license it.',
  restored: 'Brought back: published again.',
  bulk_published: 'The selected drafts are published.',
  bulk_withdrawn: 'The selected drafts are withdrawn.',
  bulk_edited: 'The selected drafts are changed.',
  replaced: 'The file is replaced: its size, renditions and signature are made again.',
  no_file: 'No file was chosen: nothing changed.',
};

/** The form's value of each field as the stored asset gives it. */
export function storedValues(asset: EditableAssetRecord): Map<string, FormValue> {
  const values = new Map<string, FormValue>();
  const fields = asset.fields;
  const allowedUse = (fields.allowed_use ?? {}) as { usage_restrictions?: string[] | null; release_info?: string | null; how_can_i_use_it?: string | null };
  for (const field of editFieldsOf(asset.asset_type)) {
    let value: unknown;
    if (field.name === 'keywords') value = ((fields.keywords as StoredKeyword[] | null | undefined) ?? []).map((keyword) => keyword.text);
    else if (field.ingestField === 'allowed_use') value = allowedUse[field.name as keyof typeof allowedUse];
    else value = fields[field.name];
    if (field.kind === 'checks') values.set(field.name, Array.isArray(value) ? (value as string[]) : []);
    else if (field.kind === 'lines') values.set(field.name, Array.isArray(value) ? (value as string[]).join('\n') : '');
    else values.set(field.name, value === null || value === undefined ? '' : String(value));
  }
  return values;
}

/** The form's value of each field as posted. */
function postedValues(assetType: AssetType, form: Fields): Map<string, FormValue> {
  const values = new Map<string, FormValue>();
  for (const field of editFieldsOf(assetType)) {
    if (field.kind === 'checks') {
      values.set(field.name, field.choices!(assetType).map(([choice]) => choice).filter((choice) => typeof form[`${field.name}.${choice}`] === 'string'));
      continue;
    }
    const value = form[field.name];
    if (value !== undefined && typeof value !== 'string') throw invalidField(`${field.label}: give it once, as text`);
    const text = (value ?? '').replace(/\r\n/g, '\n');
    values.set(field.name, field.kind === 'lines' ? linesOf(text).join('\n') : text.trim());
  }
  return values;
}

function linesOf(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

const same = (a: FormValue | undefined, b: FormValue | undefined) => JSON.stringify(a ?? '') === JSON.stringify(b ?? '');

/**
 * The record to give ingest: only the fields whose value the form changed (a field not named
 * keeps its stored value), each as the manifest writes it; a blank clears. Keywords kept keep
 * their stored ids; the three parts of allowed_use go together.
 */
function changedFields(asset: EditableAssetRecord, stored: Map<string, FormValue>, posted: Map<string, FormValue>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  const fields = editFieldsOf(asset.asset_type);
  const changed = (field: EditField) => !same(stored.get(field.name), posted.get(field.name));
  for (const field of fields) {
    if (!changed(field) || field.ingestField === 'allowed_use') continue;
    const value = posted.get(field.name)!;
    if (field.kind === 'checks') record[field.name] = value.length === 0 ? null : [...value];
    else if (field.kind === 'lines') {
      const lines = linesOf(value as string);
      if (field.name === 'keywords') {
        const keywords = (asset.fields.keywords as StoredKeyword[] | null | undefined) ?? [];
        record.keywords = lines.length === 0 ? null : lines.map((text) => {
          const kept = keywords.find((keyword) => keyword.text === text);
          return kept ? { keyword_id: kept.keyword_id, text: kept.text, type: kept.type, relevance: kept.relevance } : text;
        });
      } else record[field.name] = lines.length === 0 ? null : lines;
    } else record[field.name] = value === '' ? null : value;
  }
  const allowedUse = fields.filter((field) => field.ingestField === 'allowed_use');
  if (allowedUse.some(changed)) {
    const text = (name: string) => (posted.get(name) as string | undefined) ?? '';
    const restrictions = linesOf(text('usage_restrictions'));
    const value = {
      usage_restrictions: restrictions,
      release_info: text('release_info') === '' ? null : text('release_info'),
      how_can_i_use_it: text('how_can_i_use_it') === '' ? null : text('how_can_i_use_it'),
    };
    record.allowed_use = restrictions.length === 0 && value.release_info === null && value.how_can_i_use_it === null ? null : value;
  }
  return record;
}

/** What the queue shows beside a draft: a missing title, and ingest's warnings (no product type, a type that can never license it). */
function listProblems(assets: readonly EditableAssetRecord[]): Map<string, PageProblem[]> {
  return new Map(
    assets.map((asset) => {
      const title = asset.fields.title;
      const untitled = typeof title !== 'string' || title.trim() === '' ? [{ field: 'title', message: 'No title' }] : [];
      return [asset.id, [...untitled, ...warningsOf(asset)]];
    }),
  );
}

function assetIdOf(params: unknown): string {
  return (params as { id: string }).id;
}

/** The ids ticked in the bulk form (`select.<id>`). */
function selectedIds(form: Fields): string[] {
  return Object.keys(form)
    .filter((name) => name.startsWith('select.') && typeof form[name] === 'string')
    .map((name) => name.slice('select.'.length));
}

/** A comma-separated list, blanks left out. */
function commaList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The bulk form's changes, in the order they are made: the field set, the keywords added, those removed. */
function bulkChanges(form: Fields): BulkChange[] {
  const changes: BulkChange[] = [];
  const field = optionalChoice(form, 'set_field', 'Set the field', BULK_FIELDS.map(([name]) => name));
  if (field !== undefined) {
    const text = optionalText(form, 'set_value', 'to', 4000);
    const list = field === 'product_types' || field === 'people';
    const value = text === undefined ? null : list ? commaList(text) : text;
    changes.push({ kind: 'set', field, value: Array.isArray(value) && value.length === 0 ? null : value });
  }
  const add = commaList(optionalText(form, 'add_keywords', 'Add keywords', 4000));
  if (add.length > 0) changes.push({ kind: 'add_keywords', keywords: add });
  const remove = commaList(optionalText(form, 'remove_keywords', 'Remove keywords', 4000));
  if (remove.length > 0) changes.push({ kind: 'remove_keywords', keywords: remove });
  return changes;
}

/** The catalogue's pages, for editors (and admins): the review queue, the lists, an asset's page and its picture. */
export async function catalogueRoutes(app: FastifyInstance, { site, catalogue }: BackOfficeRoutesOptions): Promise<void> {
  const { desk, pictures } = catalogue;
  // After a form, the page to see next, sent under the page policy like every answer of the back office.
  const seeOther = (reply: FastifyReply, location: string) => reply.headers(catalogue.pageHeaders).redirect(location, 303);
  site.addSection({ key: 'catalogue', label: 'Catalogue', href: '/admin/catalogue', role: 'editor', order: 10 });
  const section = { role: 'editor', section: 'catalogue' } as const;

  async function listModel(actor: Staff, publication: Publication, query: Fields): Promise<ListPageModel> {
    const text = optionalText(query, 'q', 'Id or title words');
    const assetType = optionalChoice(query, 'type', 'Type', ['image', 'video'] as const);
    const page = pageNumber(query);
    const found = await desk.list(actor, { publication, text, assetType, page, pageSize: PAGE_SIZE });
    return { publication, text, assetType, assets: found.assets, problems: listProblems(found.assets), total: found.total, page: found.page, pageSize: found.pageSize, done: DONE[typeof query.done === 'string' ? query.done : ''] };
  }

  for (const publication of ['draft', 'published', 'withdrawn'] as const) {
    const list = LISTS[publication];
    site.page(app, { ...section, url: list.path, title: list.title }, async (request, reply, { actor, frame }) =>
      site.send(reply, 200, listPage(frame, await listModel(actor, publication, queryFields(request.query)))),
    );
  }

  // One action over the drafts ticked in the queue: publish them, withdraw (reject) them, or change them.
  site.form(app, { ...section, url: '/admin/catalogue/bulk', title: LISTS.draft.title }, async (request, reply, { actor, form, csrfToken }) => {
    const action = optionalChoice(form, 'action', 'Action', ['publish', 'withdraw', 'edit'] as const);
    const ids = selectedIds(form);
    const refuse = async (status: number, bulk: Pick<ListPageModel, 'bulkOutcomes' | 'bulkProblem'>) => {
      const frame: StaffFrame = { ...site.frameOf(request)!, csrfToken, path: LISTS.draft.path };
      const model = await listModel(actor, 'draft', {});
      return site.send(reply, status, listPage(frame, { ...model, ...bulk, selected: new Set(ids) }));
    };
    if (action === undefined) return refuse(400, { bulkProblem: 'Choose what to do with the selection.' });
    if (ids.length === 0) return refuse(400, { bulkProblem: 'Select at least one draft first.' });
    let outcomes: BulkOutcome[];
    if (action === 'edit') {
      const changes = bulkChanges(form);
      if (changes.length === 0) return refuse(400, { bulkProblem: 'Say what to change: a field to set, or keywords to add or remove.' });
      // A draft refused one change is left out of the next ones: it stays as it was, and its refusal is shown.
      const refused: BulkResult[] = [];
      for (const change of changes) {
        const remaining = ids.filter((id) => !refused.some((result) => result.id === id));
        if (remaining.length === 0) break;
        refused.push(...(await desk.updateMany(actor, remaining, change)).filter((result) => !result.ok));
      }
      outcomes = refused.map((result) => ({ id: result.id, problems: result.ok ? [] : result.problems }));
    } else {
      const results: PublicationResult[] = action === 'publish' ? await desk.publish(actor, ids) : await desk.withdraw(actor, ids);
      outcomes = results.filter((result) => result.refusal !== undefined).map((result) => ({ id: result.id, problems: [{ field: 'state', message: result.refusal! }] }));
    }
    if (outcomes.length > 0) return refuse(400, { bulkOutcomes: outcomes });
    const done = { publish: 'bulk_published', withdraw: 'bulk_withdrawn', edit: 'bulk_edited' }[action];
    return seeOther(reply, `${LISTS.draft.path}?done=${done}`);
  });

  site.page(app, { ...section, url: '/admin/catalogue/assets/:id', title: 'Asset' }, async (request, reply, { actor, frame }) => {
    const { asset, warnings } = await desk.read(actor, assetIdOf(request.params));
    const done = DONE[queryFields(request.query).done ?? ''];
    return site.send(reply, 200, editPage({ ...frame, title: titleOf(asset) }, { asset, values: storedValues(asset), problems: [], warnings, done }));
  });

  site.form(app, { ...section, url: '/admin/catalogue/assets/:id', title: 'Asset' }, async (request, reply, { actor, form, csrfToken }) => {
    const id = assetIdOf(request.params);
    const { asset } = await desk.read(actor, id);
    const stored = storedValues(asset);
    const posted = postedValues(asset.asset_type, form);
    const record = changedFields(asset, stored, posted);
    if (Object.keys(record).length === 0) return seeOther(reply, `${editPath(id)}?done=unchanged`);
    const result = await desk.update(actor, id, record);
    if (result.ok) return seeOther(reply, `${editPath(id)}?done=saved`);
    // Refused: nothing was stored; the page shows what was posted, each problem beside its field.
    const frame: StaffFrame = { ...site.frameOf(request)!, title: titleOf(asset), csrfToken, path: editPath(id) };
    return site.send(reply, 400, editPage(frame, { asset, values: posted, problems: result.problems, warnings: warningsOf(asset), done: undefined }));
  });

  const moves = [
    ['publish', 'published', (actor: Staff, id: string) => desk.publish(actor, [id])],
    ['withdraw', 'withdrawn', (actor: Staff, id: string) => desk.withdraw(actor, [id])],
    ['restore', 'restored', (actor: Staff, id: string) => desk.restore(actor, [id])],
  ] as const;
  for (const [move, done, act] of moves) {
    site.form(app, { ...section, url: `/admin/catalogue/assets/:id/${move}`, title: 'Asset' }, async (request, reply, { actor }) => {
      const id = assetIdOf(request.params);
      await desk.read(actor, id);
      const [result] = await act(actor, id);
      if (result?.refusal !== undefined) throw publicationMoveRefused(result.refusal);
      return seeOther(reply, `${editPath(id)}?done=${done}`);
    });
  }

  registerFileForm(app, (request) => site.hasSession(request));
  site.form(app, { ...section, url: '/admin/catalogue/assets/:id/file', title: 'Asset' }, async (request, reply, { actor, csrfToken }) => {
    const id = assetIdOf(request.params);
    const { asset } = await desk.read(actor, id);
    const file = formFile(request, 'file');
    if (file === undefined) return seeOther(reply, `${editPath(id)}?done=no_file`);
    const result = await desk.update(actor, id, {}, { name: file.name === '' ? 'file' : file.name, data: file.data });
    if (result.ok) return seeOther(reply, `${editPath(id)}?done=replaced`);
    // Refused (a file ingest cannot read, or one of another type): the original stays; the problem shows beside the file.
    const frame: StaffFrame = { ...site.frameOf(request)!, title: titleOf(asset), csrfToken, path: editPath(id) };
    return site.send(reply, 400, editPage(frame, { asset, values: storedValues(asset), problems: result.problems, warnings: warningsOf(asset), done: undefined }));
  });

  // The asset's picture for the queue and the edit page, drafts and withdrawn assets included: private to this person's browser.
  site.page(app, { ...section, url: '/admin/catalogue/assets/:id/picture/:file', title: 'Picture' }, async (request, reply, { actor }) => {
    const { id, file } = request.params as { id: string; file: string };
    const name = PICTURE_FILES.find((known) => known === file);
    if (name === undefined) throw pictureNotFound(id);
    await desk.read(actor, id);
    const picture = await pictures.pictureOf(id, name);
    if (picture === undefined) throw pictureNotFound(id);
    return reply
      .code(200)
      .headers({ ...catalogue.pageHeaders, 'content-type': picture.contentType, 'cache-control': 'private, max-age=300' })
      .send(picture.body);
  });
}

function titleOf(asset: EditableAssetRecord): string {
  const title = asset.fields.title;
  return typeof title === 'string' && title.trim() !== '' ? title : asset.id;
}
