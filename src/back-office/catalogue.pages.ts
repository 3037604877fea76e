import type { AssetType, EditableAssetRecord, Publication } from '../catalog/catalog.records.js';
import { ASSET_FAMILIES } from '../catalog/ingest/ingest.schemas.js';
import { ASSET_PRODUCT_TYPES, PRODUCT_TYPE_NAMES } from '../catalog/product-types.js';
import { html, type Html } from '../web/web-html.js';
import type { StaffFrame } from './back-office-site.js';
import { csrfField, layout, notice, pager, when } from './back-office.pages.js';
import { FILE_FORM_LARGEST_BYTES } from './file-form.js';

/*
 * The catalogue's pages: the review queue of drafts, the published and withdrawn lists, and an
 * asset's edit page. Pure functions from what to show to HTML; every problem is shown beside its
 * field (the field points at it with aria-describedby) and listed at the top, linked to the field.
 */

/** A problem or a warning, filed under the form field it is about (ingest's field names). */
export interface PageProblem {
  field: string;
  message: string;
}

/** How a form field is written: one line, several lines, a choice, or a set of boxes to tick. */
type FieldKind = 'text' | 'area' | 'lines' | 'choice' | 'checks';

/** A field of the edit form: its form name, the ingest field its problems come under, its label, and what it offers. */
export interface EditField {
  name: string;
  /** The ingest field: `allowed_use` for its three parts, the name itself otherwise. */
  ingestField: string;
  label: string;
  kind: FieldKind;
  hint?: string;
  /** The choices of a choice or of boxes (value → label), by asset type. */
  choices?: (assetType: AssetType) => ReadonlyArray<readonly [string, string]>;
  /** The asset types that have the field (both when absent). */
  only?: AssetType;
  /** Which group of the page it goes in. */
  group: 'description' | 'licensing' | 'people and place' | 'dates';
}

const LICENCE_MODELS: Readonly<Record<AssetType, readonly string[]>> = {
  image: ['royaltyfree', 'rightsmanaged'],
  video: ['royaltyfree', 'rightsmanaged', 'rightsready'],
};

/** Every field the edit page shows, in order. The ingest schema is the judge of each value. */
export const EDIT_FIELDS: readonly EditField[] = [
  { name: 'title', ingestField: 'title', label: 'Title', kind: 'text', group: 'description' },
  { name: 'caption', ingestField: 'caption', label: 'Caption', kind: 'area', group: 'description' },
  { name: 'keywords', ingestField: 'keywords', label: 'Keywords', kind: 'lines', hint: 'One a line', group: 'description' },
  { name: 'artist', ingestField: 'artist', label: 'Artist', kind: 'text', group: 'description' },
  { name: 'copyright', ingestField: 'copyright', label: 'Copyright', kind: 'text', group: 'description' },
  { name: 'asset_family', ingestField: 'asset_family', label: 'Family', kind: 'choice', choices: () => ASSET_FAMILIES.map((value) => [value, value] as const), group: 'licensing' },
  { name: 'collection_code', ingestField: 'collection_code', label: 'Collection code', kind: 'text', hint: "1-32 letters, digits, '_' or '-'", group: 'licensing' },
  { name: 'license_model', ingestField: 'license_model', label: 'Licence model', kind: 'choice', choices: (type) => LICENCE_MODELS[type].map((value) => [value, value] as const), group: 'licensing' },
  {
    name: 'product_types',
    ingestField: 'product_types',
    label: 'Product types that license it',
    kind: 'checks',
    choices: () => ASSET_PRODUCT_TYPES.map((value) => [value, PRODUCT_TYPE_NAMES[value]] as const),
    group: 'licensing',
  },
  { name: 'usage_restrictions', ingestField: 'allowed_use', label: 'Usage restrictions', kind: 'lines', hint: 'One a line', group: 'licensing' },
  { name: 'release_info', ingestField: 'allowed_use', label: 'Release information', kind: 'text', group: 'licensing' },
  { name: 'how_can_i_use_it', ingestField: 'allowed_use', label: 'How it may be used', kind: 'text', group: 'licensing' },
  { name: 'people', ingestField: 'people', label: 'People shown', kind: 'lines', hint: 'One a line', group: 'people and place' },
  { name: 'city', ingestField: 'city', label: 'City', kind: 'text', group: 'people and place' },
  { name: 'state_province', ingestField: 'state_province', label: 'State or province', kind: 'text', group: 'people and place' },
  { name: 'country', ingestField: 'country', label: 'Country', kind: 'text', group: 'people and place' },
  { name: 'date_created', ingestField: 'date_created', label: 'Date created', kind: 'text', hint: 'An ISO 8601 date or date-time, e.g. 2024-05-01', group: 'dates' },
  { name: 'date_camera_shot', ingestField: 'date_camera_shot', label: 'Date shot', kind: 'text', hint: 'An ISO 8601 date or date-time', only: 'image', group: 'dates' },
  { name: 'date_submitted', ingestField: 'date_submitted', label: 'Date submitted', kind: 'text', hint: 'An ISO 8601 date or date-time', group: 'dates' },
];

/** The fields an asset of this type has on its page. */
export function editFieldsOf(assetType: AssetType): EditField[] {
  return EDIT_FIELDS.filter((field) => field.only === undefined || field.only === assetType);
}

/** The form's values of a field: the text of a box, or the ticked values of boxes. */
export type FormValue = string | readonly string[];

const STATE_NAMES: Readonly<Record<Publication, string>> = { draft: 'Draft', published: 'Published', withdrawn: 'Withdrawn' };

/** The three lists: where each lives and what it is called. */
export const LISTS: Readonly<Record<Publication, { path: string; title: string; section: string }>> = {
  draft: { path: '/admin/catalogue', title: 'Review queue', section: 'catalogue' },
  published: { path: '/admin/catalogue/published', title: 'Published assets', section: 'catalogue' },
  withdrawn: { path: '/admin/catalogue/withdrawn', title: 'Withdrawn assets', section: 'catalogue' },
};

export function editPath(id: string): string {
  return `/admin/catalogue/assets/${encodeURIComponent(id)}`;
}

export function picturePath(id: string, file: 'thumb.jpg' | 'comp.jpg'): string {
  return `${editPath(id)}/picture/${file}`;
}

function titleOf(asset: EditableAssetRecord): string | undefined {
  const title = asset.fields.title;
  return typeof title === 'string' && title.trim() !== '' ? title : undefined;
}

/** The catalogue's own tabs: the queue and the two lists. */
function tabs(current: Publication): Html {
  return html`<nav class="tabs" aria-label="Catalogue"><ul>${(Object.entries(LISTS) as Array<[Publication, (typeof LISTS)[Publication]]>).map(
    ([state, list]) => html`<li><a href="${list.path}"${state === current ? html` aria-current="page"` : ''}>${list.title}</a></li>`,
  )}<li><a href="/admin/uploads">Upload</a></li></ul></nav>`;
}

export interface BulkOutcome {
  id: string;
  problems: readonly PageProblem[];
}

export interface ListPageModel {
  publication: Publication;
  text: string | undefined;
  assetType: AssetType | undefined;
  assets: readonly EditableAssetRecord[];
  /** Per asset: what ingest would warn of, and a missing title. */
  problems: ReadonlyMap<string, readonly PageProblem[]>;
  total: number;
  page: number;
  pageSize: number;
  done: string | undefined;
  /** A bulk action's refusals, asset by asset (nothing else of the selection was left undone). */
  bulkOutcomes?: readonly BulkOutcome[];
  /** The selection as it was posted (kept ticked after a refusal). */
  selected?: ReadonlySet<string>;
  /** A problem of the bulk form itself (nothing selected, a value that does not fit). */
  bulkProblem?: string;
}

/** The queue of drafts, or the published or withdrawn list: search, a page of assets, and (for drafts) the bulk form. */
export function listPage(frame: StaffFrame, model: ListPageModel): string {
  const list = LISTS[model.publication];
  const drafts = model.publication === 'draft';
  const query = { q: model.text, type: model.assetType };
  const rows = model.assets.map((asset) => {
    const title = titleOf(asset);
    const problems = model.problems.get(asset.id) ?? [];
    const checkbox = `select-${asset.id}`;
    return html`<tr>
      ${drafts ? html`<td><input type="checkbox" id="${checkbox}" name="select.${asset.id}" form="bulk"${model.selected?.has(asset.id) ? html` checked` : ''}><label class="visually-hidden" for="${checkbox}">Select ${title ?? asset.id}</label></td>` : ''}
      <td>${asset.original ? html`<img class="thumb" src="${picturePath(asset.id, 'thumb.jpg')}" alt="" width="96" loading="lazy">` : html`<span class="muted">no file</span>`}</td>
      <td><a href="${editPath(asset.id)}">${title ?? html`<span class="muted">(no title)</span>`}</a><br><code>${asset.id}</code></td>
      <td>${asset.asset_type}</td>
      <td>${when(asset.updated_at)}</td>
      <td>${problems.length === 0 ? html`<span class="muted">none</span>` : html`<ul class="problems">${problems.map((problem) => html`<li>${problem.message}</li>`)}</ul>`}</td>
    </tr>`;
  });
  return layout(
    frame,
    html`<h1>${list.title}</h1>
    ${tabs(model.publication)}
    ${notice(model.done)}
    ${model.bulkProblem ? html`<p class="problem" role="alert">${model.bulkProblem}</p>` : ''}
    ${
      model.bulkOutcomes && model.bulkOutcomes.length > 0
        ? html`<div class="problem" role="alert"><p>Some of the selection was not changed:</p><ul>${model.bulkOutcomes.map(
            (outcome) => html`<li><a href="${editPath(outcome.id)}">${outcome.id}</a>: ${outcome.problems.map((problem) => `${problem.field}: ${problem.message}`).join('; ')}</li>`,
          )}</ul></div>`
        : ''
    }
    <form class="filters" method="get" action="${list.path}" role="search" aria-label="Find assets">
      <div class="field"><label for="list-q">Id or title words</label><input id="list-q" name="q" value="${model.text ?? ''}"></div>
      <div class="field"><label for="list-type">Type</label><select id="list-type" name="type"><option value="">Any</option>${(['image', 'video'] as const).map(
        (type) => html`<option value="${type}"${type === model.assetType ? html` selected` : ''}>${type}</option>`,
      )}</select></div>
      <div class="actions"><button type="submit">Find</button> <a href="${list.path}">Clear</a></div>
    </form>
    ${
      model.assets.length === 0
        ? html`<p>${drafts ? 'No draft waits for review.' : 'No asset matches.'}</p>`
        : html`<table class="assets"><caption>${list.title}: ${model.total} in all</caption>
      <thead><tr>${drafts ? html`<th scope="col">Select</th>` : ''}<th scope="col">Picture</th><th scope="col">Title and id</th><th scope="col">Type</th><th scope="col">Changed</th><th scope="col">Problems</th></tr></thead>
      <tbody>${rows}</tbody></table>`
    }
    ${pager(list.path, query, model.page, model.pageSize, model.total)}
    ${drafts && model.assets.length > 0 ? bulkForm(frame) : ''}`,
  );
}

/** The fields a bulk change may set, each to one value for the whole selection. */
export const BULK_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['title', 'Title'],
  ['caption', 'Caption'],
  ['artist', 'Artist'],
  ['copyright', 'Copyright'],
  ['asset_family', 'Family'],
  ['collection_code', 'Collection code'],
  ['license_model', 'Licence model'],
  ['product_types', 'Product types (comma separated)'],
  ['people', 'People (comma separated)'],
  ['city', 'City'],
  ['state_province', 'State or province'],
  ['country', 'Country'],
  ['date_created', 'Date created'],
];

function bulkForm(frame: StaffFrame): Html {
  return html`<form id="bulk" method="post" action="/admin/catalogue/bulk" class="bulk" aria-labelledby="bulk-heading">
    ${csrfField(frame.csrfToken)}
    <h2 id="bulk-heading">The selected drafts</h2>
    <div class="actions"><button type="submit" name="action" value="publish">Publish selected</button>
    <button type="submit" name="action" value="withdraw" class="secondary">Reject selected (withdraw)</button></div>
    <fieldset><legend>Change the selected drafts</legend>
      <div class="filters">
        <div class="field"><label for="bulk-field">Set the field</label><select id="bulk-field" name="set_field"><option value="">(none)</option>${BULK_FIELDS.map(
          ([value, label]) => html`<option value="${value}">${label}</option>`,
        )}</select></div>
        <div class="field"><label for="bulk-value">to</label><input id="bulk-value" name="set_value" aria-describedby="bulk-value-hint"><span class="hint" id="bulk-value-hint">Blank clears the field</span></div>
        <div class="field"><label for="bulk-add">Add keywords</label><input id="bulk-add" name="add_keywords" aria-describedby="bulk-keywords-hint"></div>
        <div class="field"><label for="bulk-remove">Remove keywords</label><input id="bulk-remove" name="remove_keywords" aria-describedby="bulk-keywords-hint"></div>
      </div>
      <p class="hint" id="bulk-keywords-hint">Keywords comma separated.</p>
      <button type="submit" name="action" value="edit">Apply to selected</button>
    </fieldset>
  </form>`;
}

export interface EditPageModel {
  asset: EditableAssetRecord;
  /** What each form field shows: the stored value, or what was posted when it was refused. */
  values: ReadonlyMap<string, FormValue>;
  problems: readonly PageProblem[];
  warnings: readonly PageProblem[];
  done: string | undefined;
}

function fieldId(name: string): string {
  return `field-${name}`;
}

/** An asset's edit page: its picture, state and moves, every field with its problems beside it, and the file. */
export function editPage(frame: StaffFrame, model: EditPageModel): string {
  const { asset } = model;
  const fields = editFieldsOf(asset.asset_type);
  const shown = new Set([...fields.map((field) => field.ingestField), 'file']);
  const anchorOf = (field: string) => (field === 'file' ? 'field-file' : fieldId(fields.find((candidate) => candidate.ingestField === field)!.name));
  const fileProblems = model.problems.filter((problem) => problem.field === 'file');
  const elsewhere = model.problems.filter((problem) => !shown.has(problem.field));
  const problemsOf = (field: EditField) => model.problems.filter((problem) => problem.field === field.ingestField && (field.ingestField !== 'allowed_use' || field.name === 'usage_restrictions'));
  const warningsOf = (field: EditField) => model.warnings.filter((warning) => warning.field === field.ingestField);
  const groups = ['description', 'licensing', 'people and place', 'dates'] as const;
  const title = titleOf(asset);
  return layout(
    frame,
    html`<p><a href="${LISTS[asset.publication].path}">${LISTS[asset.publication].title}</a></p>
    <h1>${title ?? asset.id}</h1>
    ${notice(model.done)}
    ${
      model.problems.length > 0
        ? html`<div class="problem" role="alert"><p>Nothing was saved: ${model.problems.length === 1 ? 'one value does' : `${model.problems.length} values do`} not fit.</p><ul>${model.problems.map(
            (problem) => html`<li>${shown.has(problem.field) ? html`<a href="#${anchorOf(problem.field)}">${problem.message}</a>` : problem.message}</li>`,
          )}</ul></div>`
        : ''
    }
    <div class="asset-head">
      ${asset.original ? html`<img class="comp" src="${picturePath(asset.id, 'comp.jpg')}" alt="${title ? `The picture of ${title}` : `The picture of asset ${asset.id}`}">` : html`<p class="muted">No file yet.</p>`}
      <dl class="facts">
        <dt>Id</dt><dd><code>${asset.id}</code></dd>
        <dt>Type</dt><dd>${asset.asset_type}</dd>
        <dt>State</dt><dd><strong class="state-${asset.publication}">${STATE_NAMES[asset.publication]}</strong></dd>
        <dt>Size</dt><dd>${asset.width !== null && asset.height !== null ? `${asset.width} × ${asset.height}` : '—'}</dd>
        <dt>Changed</dt><dd>${when(asset.updated_at)}</dd>
      </dl>
      <div class="actions">${moves(frame, asset)}</div>
    </div>
    ${elsewhere.length > 0 ? html`<div class="problem" id="problems-record">${elsewhere.map((problem) => html`<p>${problem.message}</p>`)}</div>` : ''}
    <form method="post" action="${editPath(asset.id)}" class="form-grid edit" novalidate>
      ${csrfField(frame.csrfToken)}
      ${groups.map(
        (group) => html`<fieldset><legend>${group[0]!.toUpperCase()}${group.slice(1)}</legend>${fields
          .filter((field) => field.group === group)
          .map((field) => fieldBlock(field, asset.asset_type, model.values.get(field.name), problemsOf(field), warningsOf(field)))}</fieldset>`,
      )}
      <div class="actions"><button type="submit">Save</button></div>
    </form>
    <h2 id="file-heading">Replace the file</h2>
    <form method="post" action="${editPath(asset.id)}/file" enctype="multipart/form-data" class="form-grid" aria-labelledby="file-heading">
      ${csrfField(frame.csrfToken)}
      <div class="field"><label for="field-file">A new original</label>
        <input type="file" id="field-file" name="file" required aria-describedby="field-file-hint${fileProblems.length > 0 ? ' field-file-problem' : ''}"${fileProblems.length > 0 ? html` aria-invalid="true"` : ''}>
        <span class="hint" id="field-file-hint">${asset.asset_type === 'image' ? 'A picture' : 'A video or a short clip'}, up to ${Math.round(FILE_FORM_LARGEST_BYTES / (1024 * 1024))} MB. Its size, renditions and signature are made again; the fields stay.</span>
        ${fileProblems.length > 0 ? html`<span class="field-problem" id="field-file-problem">${fileProblems.map((problem) => problem.message).join(' ')}</span>` : ''}
      </div>
      <div class="actions"><button type="submit">Replace the file</button></div>
    </form>`,
  );
}

/** The moves the asset's state allows: publish a draft, withdraw (reject) a draft or a published asset, bring back a withdrawn one. */
function moves(frame: StaffFrame, asset: EditableAssetRecord): Html {
  const move = (name: string, label: string, kind = '') =>
    html`<form method="post" action="${editPath(asset.id)}/${name}">${csrfField(frame.csrfToken)}<button type="submit"${kind ? html` class="${kind}"` : ''}>${label}</button></form>`;
  if (asset.publication === 'draft') return html`${move('publish', 'Publish')}${move('withdraw', 'Reject (withdraw)', 'secondary')}`;
  if (asset.publication === 'published') return move('withdraw', 'Withdraw', 'danger');
  return move('restore', 'Bring back (publish again)');
}

function fieldBlock(field: EditField, assetType: AssetType, value: FormValue | undefined, problems: readonly PageProblem[], warnings: readonly PageProblem[]): Html {
  const id = fieldId(field.name);
  const problemId = `${id}-problem`;
  const hintId = `${id}-hint`;
  const describedBy = [field.hint ? hintId : undefined, problems.length > 0 ? problemId : undefined, warnings.length > 0 ? `${id}-warning` : undefined].filter(Boolean).join(' ');
  const described = describedBy === '' ? '' : html` aria-describedby="${describedBy}"`;
  const invalid = problems.length > 0 ? html` aria-invalid="true"` : '';
  const text = typeof value === 'string' ? value : '';
  const after = html`${field.hint ? html`<span class="hint" id="${hintId}">${field.hint}</span>` : ''}
    ${problems.length > 0 ? html`<span class="field-problem" id="${problemId}">${problems.map((problem) => problem.message).join(' ')}</span>` : ''}
    ${warnings.length > 0 ? html`<span class="field-warning" id="${id}-warning">${warnings.map((warning) => warning.message).join(' ')}</span>` : ''}`;
  switch (field.kind) {
    case 'text':
      return html`<div class="field"><label for="${id}">${field.label}</label><input id="${id}" name="${field.name}" value="${text}"${described}${invalid}>${after}</div>`;
    case 'area':
    case 'lines':
      return html`<div class="field"><label for="${id}">${field.label}</label><textarea id="${id}" name="${field.name}" rows="${field.kind === 'lines' ? 4 : 3}"${described}${invalid}>${text}</textarea>${after}</div>`;
    case 'choice':
      return html`<div class="field"><label for="${id}">${field.label}</label><select id="${id}" name="${field.name}"${described}${invalid}><option value="">(none)</option>${field.choices!(assetType).map(
        ([choice, label]) => html`<option value="${choice}"${choice === text ? html` selected` : ''}>${label}</option>`,
      )}${text !== '' && !field.choices!(assetType).some(([choice]) => choice === text) ? html`<option value="${text}" selected>${text}</option>` : ''}</select>${after}</div>`;
    case 'checks': {
      const ticked = new Set(typeof value === 'string' ? [value] : (value ?? []));
      return html`<fieldset class="checks" id="${id}"${described}${invalid}><legend>${field.label}</legend>${field.choices!(assetType).map(
        ([choice, label]) => html`<div class="field check"><input type="checkbox" id="${id}-${choice}" name="${field.name}.${choice}"${ticked.has(choice) ? html` checked` : ''}><label for="${id}-${choice}">${label}</label></div>`,
      )}${after}</fieldset>`;
    }
  }
}
