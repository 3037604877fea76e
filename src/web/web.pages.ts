import { PRODUCT_TYPE_NAMES } from '../catalog/product-types.js';
import type { HistoricalDownload } from '../licensing/downloads.service.js';
import { originalSizeName } from '../media/video/video-sizes.js';
import { IMAGE_ORIENTATIONS, NUMBERS_OF_PEOPLE, VIDEO_LICENSE_MODELS, VIDEO_ORIENTATIONS } from '../search/params/search-values.js';
import { html, type Html } from './web-html.js';
import { browseUrl, endpointOf, familyOf, searchFor, sortOrdersOf, takes, type BrowseQuery, type ListParameter } from './web-search.js';
import { clipLength, type AssetCard, type AssetPage, type SearchPage } from './web.service.js';

/*
 * The catalogue browser's pages: pure functions from what to show to HTML. Every page is whole
 * without script; the one script only saves clicks. Nothing inline: the stylesheet and the
 * script are files of this server, so the page's policy allows no inline code at all.
 */

/** What every page's frame needs: who is signed in, the session's form token, the static files' addresses. */
export interface Frame {
  title: string;
  /** the signed-in person's name; undefined when signed out */
  userName: string | undefined;
  csrfToken: string | undefined;
  /** the current path, for sign-in to return to */
  path: string;
  stylesheet: string;
  script: string;
  /** the site's icon, shown in the tab and beside its name in the header */
  icon: string;
  language: string;
  /** the page's oEmbed answer, for consumers that discover it (an embeddable asset's page) */
  oembed?: string | undefined;
}

const LABELS: Readonly<Record<string, string>> = {
  best_match: 'Best match',
  most_popular: 'Most popular',
  newest: 'Newest',
  oldest: 'Oldest',
  random: 'Random',
  horizontal: 'Horizontal',
  vertical: 'Vertical',
  square: 'Square',
  panoramic_horizontal: 'Panoramic horizontal',
  panoramic_vertical: 'Panoramic vertical',
  rightsready: 'Rights-ready',
  royaltyfree: 'Royalty-free',
  rightsmanaged: 'Rights-managed',
  none: 'No people',
  one: 'One person',
  two: 'Two people',
  group: 'Groups',
  creative: 'Creative',
  editorial: 'Editorial',
  video: 'Video',
  artists: 'Artist',
  event_ids: 'Event',
  specific_people: 'Person',
  keyword_ids: 'Keyword',
  orientations: 'Orientation',
  license_models: 'License model',
  number_of_people: 'People',
  ...PRODUCT_TYPE_NAMES,
};

const label = (value: string) => LABELS[value] ?? value;

/** An API word in CamelCase as people write it: `PanoramicVertical` → "Panoramic vertical". */
export function humanWords(value: string): string {
  const words = value.replace(/([a-z0-9])([A-Z])/g, '$1 $2').split(/[\s_]+/).filter(Boolean);
  return words.map((word, index) => (index === 0 ? word.charAt(0).toUpperCase() + word.slice(1) : /^[A-Z0-9]+$/.test(word) && word.length > 1 ? word : word.toLowerCase())).join(' ');
}


export function csrfField(token: string | undefined): Html {
  return html`<input type="hidden" name="csrf" value="${token ?? ''}">`;
}

/** The frame around every page: header with the account links, the main content, a footer. */
export function layout(frame: Frame, main: Html): string {
  const signInHref = `/signin?return=${encodeURIComponent(frame.path)}`;
  const account = frame.userName
    ? html`<span class="who">Signed in as ${frame.userName}</span>
        <a href="/boards">Boards</a>
        <a href="/downloads">My downloads</a>
        <form method="post" action="/signout">${csrfField(frame.csrfToken)}<button class="link-button" type="submit">Sign out</button></form>`
    : html`<a href="${signInHref}">Sign in</a>`;
  return `<!doctype html>${html`<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title} · Stockroom</title>
<link rel="icon" type="image/svg+xml" href="${frame.icon}">
<link rel="stylesheet" href="${frame.stylesheet}">
<script src="${frame.script}" defer></script>
${frame.oembed ? html`<link rel="alternate" type="application/json+oembed" href="${frame.oembed}" title="${frame.title}">` : ''}
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header class="top">
<a class="brand" href="/"><img src="${frame.icon}" alt="" width="28" height="28">Stockroom</a>
<nav class="account" aria-label="Account">${account}</nav>
</header>
<main id="main">
${main}
</main>
<footer><a href="/docs">API documentation</a></footer>
</body>
</html>`.text}`;
}

// ── search ─────────────────────────────────────────────────────────────────

function checkboxes(query: BrowseQuery, name: ListParameter, values: readonly string[], legend: string): Html {
  const chosen = new Set(query.lists[name]);
  return html`<fieldset><legend>${legend}</legend>${values.map(
    (value) => html`<label class="option"><input type="checkbox" name="${name}" value="${value}"${chosen.has(value) ? html` checked` : ''}> ${label(value)}</label>`,
  )}</fieldset>`;
}

/** The refinements already applied, each a link that removes it. */
function chips(query: BrowseQuery, names: ReadonlyMap<string, string>): Html {
  const items: Html[] = [];
  for (const [name, values] of Object.entries(query.lists) as Array<[ListParameter, readonly string[]]>) {
    for (const value of values) {
      const shown = name === 'event_ids' ? (names.get(`event:${value}`) ?? value) : label(value);
      const href = browseUrl(query, { page: 1, lists: { [name]: values.filter((other) => other !== value) } });
      items.push(html`<li><a href="${href}" aria-label="Remove ${label(name)}: ${shown}">${label(name)}: ${shown} <span aria-hidden="true">×</span></a></li>`);
    }
  }
  if (query.date_from) items.push(html`<li><a href="${browseUrl(query, { page: 1, date_from: '' })}" aria-label="Remove from ${query.date_from}">From ${query.date_from} <span aria-hidden="true">×</span></a></li>`);
  if (query.date_to) items.push(html`<li><a href="${browseUrl(query, { page: 1, date_to: '' })}" aria-label="Remove until ${query.date_to}">Until ${query.date_to} <span aria-hidden="true">×</span></a></li>`);
  return items.length === 0 ? html`` : html`<ul class="chips" aria-label="Refinements">${items}</ul>`;
}

function addToBoard(assetId: string, boards: ReadonlyArray<{ id: string; name: string }>, csrfToken: string | undefined, returnTo: string, idPrefix: string): Html {
  if (boards.length === 0) return html`<a href="/boards">Make a board to collect this</a>`;
  const selectId = `${idPrefix}-board-${assetId}`;
  return html`<form class="inline-form" method="post" action="/boards/add">
    ${csrfField(csrfToken)}<input type="hidden" name="asset_id" value="${assetId}"><input type="hidden" name="return" value="${returnTo}">
    <label for="${selectId}" class="visually-hidden-label">Board</label>
    <select id="${selectId}" name="board_id">${boards.map((board) => html`<option value="${board.id}">${board.name}</option>`)}</select>
    <button type="submit" class="secondary">Add</button>
  </form>`;
}

/** Aspect ratios of justified rows are rounded to twentieths, from 1:4 to 4:1; each has a class in the stylesheet. */
const ASPECT_STEPS = 20;
const ASPECT_MIN = 5;
const ASPECT_MAX = 80;

function aspectClass(picture: AssetCard['picture']): string {
  const ratio = picture && picture.width > 0 && picture.height > 0 ? picture.width / picture.height : 3 / 2;
  return `ar-${Math.min(ASPECT_MAX, Math.max(ASPECT_MIN, Math.round(ratio * ASPECT_STEPS)))}`;
}

/**
 * The stylesheet rules of justified rows: a card grows in proportion to its picture's aspect
 * ratio from a basis of that ratio times the row height, so every card of a row ends up the same
 * height and every picture is shown whole. Classes, not inline styles: the page's policy allows none.
 */
export function justifiedRowRules(): string {
  const rules: string[] = [];
  for (let step = ASPECT_MIN; step <= ASPECT_MAX; step++) {
    const ratio = step / ASPECT_STEPS;
    rules.push(`.justified .ar-${step}{flex-grow:${ratio};flex-basis:calc(${ratio} * var(--row))}.justified .ar-${step} .frame{aspect-ratio:${step}/${ASPECT_STEPS}}`);
  }
  return `${rules.join('\n')}\n`;
}

export function assetGrid(
  cards: readonly AssetCard[],
  options: {
    boards?: ReadonlyArray<{ id: string; name: string }>;
    csrfToken?: string | undefined;
    returnTo?: string;
    label: string;
    captions?: boolean;
    /** a board's own part of each card: its note, and the controls to move it and write the note */
    extra?: (card: AssetCard, index: number) => Html;
    /** the cards can be dragged into a new order (the board's owner; the script does the dragging) */
    draggable?: boolean;
  },
): Html {
  return html`<ul class="justified"${options.draggable ? html` data-board-order` : ''} aria-label="${options.label}">${cards.map(
    (card, index) => html`<li class="card ${aspectClass(card.picture)}"${options.extra ? html` id="asset-${card.id}"` : ''}${options.draggable ? html` draggable="true" data-asset-id="${card.id}"` : ''}${card.clip ? html` data-clip="${card.clip}"` : ''}${card.comp ? html` data-comp="${card.comp}"` : ''}>
      <a class="frame" href="/asset/${encodeURIComponent(card.id)}" tabindex="-1" aria-hidden="true">${
        card.picture ? html`<img src="${card.picture.uri}" alt="" width="${card.picture.width}" height="${card.picture.height}" loading="lazy">` : html`<span class="no-picture">No preview</span>`
      }</a>
      <div class="body">
        <a class="title" href="/asset/${encodeURIComponent(card.id)}">${card.title}</a>
        <span class="meta">${[card.assetType === 'video' ? 'Video' : 'Image', card.family ? label(card.family) : null, card.artist].filter(Boolean).join(' · ')}</span>
        ${card.facts.length > 0 ? html`<span class="facts">${card.facts.join(' · ')}</span>` : ''}
        ${options.captions && card.caption ? html`<p class="caption">${card.caption}</p>` : ''}
        ${options.extra ? options.extra(card, index) : ''}
        ${card.picture ? html`<button type="button" class="link-button quick-look" data-quick-look hidden>Quick look<span class="visually-hidden-label">: ${card.title}</span></button>` : ''}
        ${
          options.boards
            ? html`<details><summary>Add to board</summary>${addToBoard(card.id, options.boards, options.csrfToken, options.returnTo ?? '/', 'card')}</details>`
            : ''
        }
      </div>
    </li>`,
  )}</ul>`;
}

export function searchPage(
  frame: Frame,
  query: BrowseQuery,
  page: SearchPage,
  extras: { eventNames: ReadonlyMap<string, string>; boards: ReadonlyArray<{ id: string; name: string }> | undefined; returnTo: string },
): string {
  const endpoint = endpointOf(query);
  const family = familyOf(query);
  const tabs = (['creative', 'editorial', 'video'] as const).map(
    (kind) => html`<li><a href="${browseUrl(query, { kind, page: 1 })}"${query.kind === kind ? html` aria-current="page"` : ''}>${label(kind)}</a></li>`,
  );
  const filters = html`<form method="get" action="/" class="filters-form">
      <input type="hidden" name="phrase" value="${query.phrase}">
      ${query.kind !== 'creative' ? html`<input type="hidden" name="kind" value="${query.kind}">` : ''}
      ${(['artists', 'specific_people', 'event_ids', 'keyword_ids'] as const).map((name) =>
        query.lists[name].length > 0 ? html`<input type="hidden" name="${name}" value="${query.lists[name].join(',')}">` : '',
      )}
      ${
        query.kind === 'video'
          ? html`<fieldset><legend>Video family</legend>${(['creative', 'editorial'] as const).map(
              (value) => html`<label class="option"><input type="radio" name="family" value="${value}"${query.family === value ? html` checked` : ''}> ${label(value)}</label>`,
            )}</fieldset>`
          : ''
      }
      <label class="block" for="sort">Sort by</label>
      <select id="sort" name="sort_order" data-autosubmit>${sortOrdersOf(endpoint).map(
        (order) => html`<option value="${order}"${(query.sort_order || 'best_match') === order ? html` selected` : ''}>${label(order)}</option>`,
      )}</select>
      ${checkboxes(query, 'orientations', query.kind === 'video' ? VIDEO_ORIENTATIONS : IMAGE_ORIENTATIONS, 'Orientation')}
      ${takes(endpoint, 'license_models') ? checkboxes(query, 'license_models', VIDEO_LICENSE_MODELS, 'License model') : ''}
      ${takes(endpoint, 'number_of_people') ? checkboxes(query, 'number_of_people', NUMBERS_OF_PEOPLE, 'People') : ''}
      ${
        takes(endpoint, 'date_from')
          ? html`<fieldset><legend>Date</legend>
              <label class="block" for="date_from">From</label><input type="date" id="date_from" name="date_from" value="${query.date_from}">
              <label class="block" for="date_to">Until</label><input type="date" id="date_to" name="date_to" value="${query.date_to}">
            </fieldset>`
          : ''
      }
      <button type="submit">Apply</button>
    </form>`;
  const facets = page.facets.map(
    (facet) => html`<section class="facet" aria-labelledby="facet-${facet.parameter}">
      <h3 id="facet-${facet.parameter}">${facet.parameter === 'artists' ? 'Artists' : facet.parameter === 'event_ids' ? 'Events' : 'People'}</h3>
      <ul>${facet.values.map((value) => {
        const chosen = query.lists[facet.parameter].includes(value.value);
        const href = browseUrl(query, { page: 1, lists: { [facet.parameter]: chosen ? query.lists[facet.parameter] : [...query.lists[facet.parameter], value.value] } });
        return html`<li><a href="${href}"${chosen ? html` aria-current="true"` : ''}><span>${value.label}</span> <span class="count">${value.count.toLocaleString('en')}</span></a></li>`;
      })}</ul>
    </section>`,
  );
  const pager =
    page.pages > 1
      ? html`<nav class="pager" aria-label="Pages">
          ${query.page > 1 ? html`<a class="button secondary" href="${browseUrl(query, { page: query.page - 1 })}" rel="prev">Previous</a>` : ''}
          <span>Page ${query.page} of ${Math.min(page.pages, 100)}</span>
          ${query.page < Math.min(page.pages, 100) ? html`<a class="button secondary" href="${browseUrl(query, { page: query.page + 1 })}" rel="next">Next</a>` : ''}
        </nav>`
      : '';
  const heading = query.phrase ? `“${query.phrase}”` : `${label(query.kind)}${query.kind === 'video' ? ` (${label(family).toLowerCase()})` : ''}`;
  const main = html`<h1 class="visually-hidden-heading">Search the catalogue</h1>
    <form method="get" action="/" role="search" class="search-bar">
      <label for="phrase" class="visually-hidden-label">Search for</label>
      <input type="search" id="phrase" name="phrase" value="${query.phrase}" placeholder="Search images and video" autocomplete="off" list="phrase-suggestions" data-suggest>
      <datalist id="phrase-suggestions"></datalist>
      ${query.kind !== 'creative' ? html`<input type="hidden" name="kind" value="${query.kind}">` : ''}
      ${query.kind === 'video' && query.family !== 'creative' ? html`<input type="hidden" name="family" value="${query.family}">` : ''}
      <button type="submit">Search</button>
    </form>
    <nav aria-label="What to search"><ul class="tabs">${tabs}</ul></nav>
    <div class="layout">
      <aside class="filters" aria-label="Refine">
        <details open><summary>Refine</summary>${facets}${filters}</details>
      </aside>
      <section aria-labelledby="results-heading">
        <h2 id="results-heading" class="summary">${page.total.toLocaleString('en')} result${page.total === 1 ? '' : 's'} · ${heading}</h2>
        ${
          page.correction
            ? page.total === 0
              ? html`<p class="did-you-mean">Did you mean <a href="${browseUrl(query, { phrase: page.correction, page: 1 })}">${page.correction}</a>?</p>`
              : html`<p>Showing results for <a href="${browseUrl(query, { phrase: page.correction, page: 1 })}">${page.correction}</a>.</p>`
            : ''
        }
        ${chips(query, extras.eventNames)}
        ${page.cards.length === 0 ? html`<p>Nothing matches. Try fewer words or remove a refinement.</p>` : assetGrid(page.cards, { boards: extras.boards, csrfToken: frame.csrfToken, returnTo: extras.returnTo, label: 'Results' })}
        ${pager}
      </section>
    </div>`;
  return layout(frame, main);
}

// ── asset ──────────────────────────────────────────────────────────────────

function fact(name: string, value: Html | string | null | undefined): Html {
  if (value === null || value === undefined || value === '') return html``;
  return html`<dt>${name}</dt><dd>${value}</dd>`;
}

export function assetPage(frame: Frame, page: AssetPage, notice: string | undefined): string {
  const { record, detail } = page;
  const family = (typeof detail.asset_family === 'string' && detail.asset_family === 'editorial' ? 'editorial' : 'creative') as 'creative' | 'editorial';
  const kind = record.asset_type === 'video' ? 'video' : family;
  const artist = typeof detail.artist === 'string' && detail.artist ? detail.artist : null;
  const people = Array.isArray(detail.people) ? (detail.people as string[]) : [];
  const where = [detail.city, detail.country].filter((part) => typeof part === 'string' && part).join(', ');
  const date = typeof detail.date_created === 'string' ? detail.date_created.slice(0, 10) : null;
  const stage =
    record.asset_type === 'video'
      ? html`<video controls preload="metadata" playsinline width="${page.preview.width}" height="${page.preview.height}"${page.preview.poster ? html` poster="${page.preview.poster}"` : ''} aria-label="${page.title}">
          ${page.preview.clip ? html`<source src="${page.preview.clip}" type="video/mp4">` : ''}
          <p>This video's preview clip cannot play here.</p>
        </video>`
      : page.preview.poster
        ? html`<img src="${page.preview.poster}" alt="${page.caption ?? page.title}" width="${page.preview.width}" height="${page.preview.height}">`
        : html`<p class="note">No preview.</p>`;
  const license = page.licensing
    ? page.licensing.length === 0
      ? html`<p>None of your products licenses this ${record.asset_type}.</p>`
      : html`<form method="post" action="/asset/${encodeURIComponent(record.id)}/download" class="license">
          ${csrfField(frame.csrfToken)}
          ${
            page.licensing.some((size) => size.options.some((option) => option.alreadyLicensed))
              ? html`<p class="already-licensed">You have licensed this ${record.asset_type} already: downloading it again under the same product costs nothing.</p>`
              : ''
          }
          ${page.licensing.map(
            (size, sizeIndex) => html`<fieldset><legend>${size.label}</legend>${size.options.map(
              (option, optionIndex) => html`<label class="option"><input type="radio" name="choice" value="${size.sizeValue}|${option.productId}|${option.productType}" required${sizeIndex === 0 && optionIndex === 0 ? html` checked` : ''}>
                <span>${option.productName}${option.agreementName ? html` (${option.agreementName})` : ''}<span class="cost">${option.cost}</span></span></label>`,
            )}</fieldset>`,
          )}
          ${
            page.licensing.some((size) => size.options.some((option) => option.noteRequired))
              ? html`<label class="block" for="notes">Download notes</label><input type="text" id="notes" name="notes" maxlength="500">`
              : ''
          }
          ${
            page.licensing.some((size) => size.options.some((option) => option.projectCodeRequired))
              ? html`<label class="block" for="project_code">Project code</label><input type="text" id="project_code" name="project_code" maxlength="100">`
              : ''
          }
          <p><button type="submit">Download</button></p>
        </form>`
    : html`<p><a class="button" href="/signin?return=${encodeURIComponent(frame.path)}">Sign in to license and download</a></p>`;
  const { terms } = page;
  const termsPanel = html`<section class="panel terms" aria-labelledby="terms-heading"><h2 id="terms-heading">Licence terms</h2>
    ${terms.restrictions.length > 0 ? html`<ul class="restrictions" aria-label="Usage restrictions">${terms.restrictions.map((restriction) => html`<li>${restriction}</li>`)}</ul>` : ''}
    <dl class="facts">
      ${fact('Licence', terms.licenseModel)}
      ${fact('Use', terms.use)}
      ${fact('Releases', terms.release)}
      ${fact('Copyright', terms.copyright)}
      ${fact('Credit line', terms.creditLine)}
    </dl>
  </section>`;
  const pricesPanel =
    page.prices.length === 0
      ? html`<p class="note">No product licenses this ${record.asset_type}.</p>`
      : html`<h3 class="subheading">What licensing costs</h3><ul class="prices" aria-label="What each product charges">${page.prices.map(
          (price) => html`<li><span class="product">${label(price.productType)}</span> <span class="cost">${price.cost}</span></li>`,
        )}</ul>`;
  const maxDimensions = detail.max_dimensions as { width?: unknown; height?: unknown } | undefined;
  const largest = typeof maxDimensions?.width === 'number' && typeof maxDimensions.height === 'number' ? { width: maxDimensions.width, height: maxDimensions.height } : undefined;
  const resolution = largest
    ? record.asset_type === 'video'
      ? `${originalSizeName(largest.width, largest.height)} (${largest.width} × ${largest.height})`
      : `${largest.width} × ${largest.height} px`
    : null;
  // The terms that decide whether it can be used at all, under the title where a phone shows them first.
  const headline = [...terms.restrictions, terms.licenseModel].filter((term): term is string => Boolean(term));
  const main = html`<h1>${page.title}</h1>
    ${headline.length > 0 ? html`<p class="terms-line">${headline.map((term, index) => html`${index > 0 ? ' · ' : ''}<strong>${term}</strong>`)} · <a href="#terms-heading">Licence terms</a></p>` : ''}
    <div class="asset">
      <div class="stack">
        <div class="stage">${stage}</div>
        ${page.caption ? html`<p>${page.caption}</p>` : ''}
      </div>
      <div>
        ${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
        ${termsPanel}
        <section class="panel" aria-labelledby="license-heading"><h2 id="license-heading">License</h2>${license}${pricesPanel}</section>
        ${
          frame.userName
            ? html`<section class="panel" aria-labelledby="board-heading"><h2 id="board-heading">Add to a board</h2>${addToBoard(record.id, page.boards, frame.csrfToken, frame.path, 'asset')}</section>`
            : ''
        }
        <section class="panel" aria-labelledby="details-heading"><h2 id="details-heading">Details</h2>
          <dl class="facts">
            ${fact('Artist', artist ? html`<a href="${searchFor(kind, family, { lists: { artists: [artist] } })}">${artist}</a>` : null)}
            ${fact('Type', `${record.asset_type === 'video' ? 'Video' : 'Image'}, ${label(family).toLowerCase()}`)}
            ${fact('License model', typeof detail.license_model === 'string' ? label(detail.license_model) : null)}
            ${fact('Collection', typeof detail.collection_name === 'string' ? detail.collection_name : null)}
            ${fact('Created', date)}
            ${fact('Place', where || null)}
            ${fact('Orientation', typeof detail.orientation === 'string' ? humanWords(detail.orientation) : null)}
            ${fact('Length', typeof detail.clip_length === 'string' ? clipLength(detail.clip_length) : null)}
            ${fact(record.asset_type === 'video' ? 'Resolution' : 'Largest size', resolution)}
            ${fact(
              'People',
              people.length > 0
                ? html`${people.map((person, index) => html`${index > 0 ? ', ' : ''}<a href="${searchFor(kind === 'video' ? 'video' : 'editorial', 'editorial', { lists: { specific_people: [person] } })}">${person}</a>`)}`
                : null,
            )}
            ${fact('Id', record.id)}
          </dl>
        </section>
      </div>
    </div>
    ${
      page.keywords.length > 0
        ? html`<section aria-labelledby="keywords-heading"><h2 id="keywords-heading">Keywords</h2><ul class="keywords">${page.keywords.map(
            (keyword) =>
              html`<li><a href="${searchFor(kind, family, { phrase: keyword.text })}"${keyword.label !== keyword.text ? html` lang="${frame.language}"` : ''}>${keyword.label}</a></li>`,
          )}</ul></section>`
        : ''
    }
    ${page.similar.length > 0 ? html`<section aria-labelledby="similar-heading"><h2 id="similar-heading">Similar</h2>${assetGrid(page.similar, { label: 'Similar' })}</section>` : ''}
    ${page.sameSeries.length > 0 ? html`<section aria-labelledby="series-heading"><h2 id="series-heading">Same series</h2>${assetGrid(page.sameSeries, { label: 'Same series' })}</section>` : ''}`;
  return layout(frame, main);
}

// ── downloads, boards, errors ────────────────────────────────────────────────

export function downloadsPage(frame: Frame, history: { result_count: number; downloads: HistoricalDownload[] }, titles: ReadonlyMap<string, string>): string {
  const main = html`<h1>My downloads</h1>
    <p>${history.result_count.toLocaleString('en')} download${history.result_count === 1 ? '' : 's'} in the last 30 days.</p>
    ${
      history.downloads.length === 0
        ? html`<p>Nothing yet. <a href="/">Find something to license.</a></p>`
        : html`<ul class="download-list" aria-label="Your downloads, newest first">${history.downloads.map(
            (download) => html`<li>
              ${download.thumb_uri ? html`<img src="${download.thumb_uri}" alt="" width="96" height="64">` : ''}
              <div><a href="/asset/${encodeURIComponent(download.id)}">${titles.get(download.id) ?? download.id}</a>
              <p class="meta">${download.date_downloaded.replace('T', ' ').slice(0, 16)} UTC · ${label(download.product_type)}${download.size_name ? ` · ${download.size_name}` : ''}${
                download.dimensions.width && download.dimensions.height ? ` (${download.dimensions.width} × ${download.dimensions.height} px)` : ''
              }</p></div>
            </li>`,
          )}</ul>`
    }`;
  return layout(frame, main);
}

export interface BoardSummary {
  id: string;
  name: string;
  asset_count: number;
  description: string | null;
  hero: string | undefined;
  relationship: string;
}

export function boardsPage(frame: Frame, boards: readonly BoardSummary[], problem: string | undefined): string {
  const main = html`<h1>Boards</h1>
    ${problem ? html`<p class="problem" role="alert">${problem}</p>` : ''}
    <section class="panel" aria-labelledby="new-board"><h2 id="new-board">New board</h2>
      <form method="post" action="/boards" class="stack">
        ${csrfField(frame.csrfToken)}
        <div><label class="block" for="board-name">Name</label><input type="text" id="board-name" name="name" required maxlength="200"></div>
        <div><label class="block" for="board-description">Description (optional)</label><textarea id="board-description" name="description" maxlength="2000"></textarea></div>
        <button type="submit">Create board</button>
      </form>
    </section>
    ${
      boards.length === 0
        ? html`<p>You have no boards yet.</p>`
        : html`<ul class="grid" aria-label="Your boards">${boards.map(
            (board) => html`<li class="card">
              <a class="frame" href="/boards/${encodeURIComponent(board.id)}" tabindex="-1" aria-hidden="true">${board.hero ? html`<img src="${board.hero}" alt="" loading="lazy">` : ''}</a>
              <div class="body"><a class="title" href="/boards/${encodeURIComponent(board.id)}">${board.name}</a>
              <span class="meta">${board.asset_count} asset${board.asset_count === 1 ? '' : 's'}${board.relationship === 'invited' ? ' · shared with you' : ''}</span></div>
            </li>`,
          )}</ul>`
    }`;
  return layout(frame, main);
}

export interface BoardView {
  id: string;
  name: string;
  description: string | null;
  assets: AssetCard[];
  comments: Array<{ text: string; author: string; date: string }>;
  canComment: boolean;
  shareUrl: string | null;
  invitationUrl: string | null;
  /** asset id → its note */
  notes: ReadonlyMap<string, string>;
  canArrange: boolean;
  canAnnotate: boolean;
  /** whether the share link's page shows the comments; null: the person may not choose */
  shareComments: boolean | null;
  /** the asset just moved and which way, so its button keeps the focus on the page that follows */
  moved: { assetId: string; direction: 'up' | 'down' | undefined } | undefined;
}

function boardTiles(assets: readonly AssetCard[], label: string, captions = false): Html {
  if (assets.length === 0) return html`<p>No assets yet. Add some from a search or an asset's page.</p>`;
  return assetGrid(assets, { label, captions });
}

/** A board card's own part: its place, its note, buttons to move it a place (no mouse needed) and a form for the note. */
function boardCardControls(board: BoardView, csrfToken: string | undefined): (card: AssetCard, index: number) => Html {
  const count = board.assets.length;
  return (card, index) => {
    const note = board.notes.get(card.id);
    const boardPath = `/boards/${encodeURIComponent(board.id)}`;
    const focus = board.moved?.assetId === card.id ? (board.moved.direction ?? 'up') : undefined;
    const first = index === 0;
    const last = index === count - 1;
    // The button pressed keeps the focus after the page reloads; at an end, its neighbour takes it.
    const focusUp = focus !== undefined && !first && (focus === 'up' || last);
    const focusDown = focus !== undefined && !last && !focusUp;
    const moveButton = (direction: 'up' | 'down', disabled: boolean, autofocus: boolean) =>
      html`<button type="submit" class="secondary" name="move" value="${direction}"${disabled ? html` disabled` : ''}${autofocus ? html` autofocus` : ''}><span aria-hidden="true">${direction === 'up' ? '↑ Up' : '↓ Down'}</span><span class="visually-hidden-label">${direction === 'up' ? 'Move up' : 'Move down'}: ${card.title}</span></button>`;
    return html`${note ? html`<p class="asset-note"><strong>Note:</strong> ${note}</p>` : ''}
      ${
        board.canArrange
          ? html`<form class="inline-form move" method="post" action="${boardPath}/order">${csrfField(csrfToken)}<input type="hidden" name="asset_id" value="${card.id}">
              <span class="place">${index + 1} of ${count}</span>${moveButton('up', first, focusUp)}${moveButton('down', last, focusDown)}</form>`
          : ''
      }
      ${
        board.canAnnotate
          ? html`<details><summary>${note ? 'Edit the note' : 'Add a note'}</summary>
              <form class="stack" method="post" action="${boardPath}/notes">${csrfField(csrfToken)}<input type="hidden" name="asset_id" value="${card.id}">
                <label class="block" for="note-${index}">Note on ${card.title}</label>
                <textarea id="note-${index}" name="note" maxlength="500">${note ?? ''}</textarea>
                <button type="submit" class="secondary">Save the note</button>
              </form></details>`
          : ''
      }`;
  };
}

function linkField(id: string, title: string, url: string, kind: 'share' | 'invitation', boardId: string, csrfToken: string | undefined): Html {
  return html`<div class="stack"><label class="block" for="${id}">${title}</label>
    <div class="share"><input type="text" id="${id}" value="${url}" readonly>
    <button type="button" class="secondary" data-copy="${id}" hidden>Copy</button>
    <a class="button secondary" href="${url}">Open</a></div>
    <form method="post" action="/boards/${encodeURIComponent(boardId)}/links/${kind}">${csrfField(csrfToken)}<button type="submit" class="secondary">Make a new link (the old one stops working)</button></form></div>`;
}

export function boardPage(frame: Frame, board: BoardView, problem: string | undefined): string {
  const main = html`<h1>${board.name}</h1>
    ${board.description ? html`<p>${board.description}</p>` : ''}
    ${problem ? html`<p class="problem" role="alert">${problem}</p>` : ''}
    ${
      board.assets.length > 0
        ? html`<p class="board-actions"><a class="button secondary" href="/boards/${encodeURIComponent(board.id)}/download" download>Download my licensed assets (zip)</a>
            <span class="note">The assets you have licensed, each at the size you licensed, with a list of their credit lines. Assets you have not licensed are listed but left out.</span></p>`
        : ''
    }
    ${board.canArrange && board.assets.length > 1 ? html`<p class="note">Move an asset with its buttons, or drag it to its place.</p>` : ''}
    ${
      board.assets.length === 0
        ? boardTiles(board.assets, 'Assets on the board')
        : assetGrid(board.assets, { label: 'Assets on the board', extra: boardCardControls(board, frame.csrfToken), draggable: board.canArrange })
    }
    ${
      board.canArrange
        ? html`<form id="board-move" method="post" action="/boards/${encodeURIComponent(board.id)}/order" hidden>${csrfField(frame.csrfToken)}<input type="hidden" name="asset_id" value=""><input type="hidden" name="to" value=""></form>`
        : ''
    }
    ${
      board.shareUrl || board.invitationUrl
        ? html`<section class="panel links-panel" aria-labelledby="links-heading"><h2 id="links-heading">Links</h2>
            ${board.shareUrl ? linkField('share-link', 'Share link: anyone with it sees the board, read-only, without signing in', board.shareUrl, 'share', board.id, frame.csrfToken) : ''}
            ${board.invitationUrl ? linkField('invitation-link', 'Invitation link: a signed-in person who opens it can add to the board', board.invitationUrl, 'invitation', board.id, frame.csrfToken) : ''}
            ${
              board.shareComments !== null
                ? html`<form method="post" action="/boards/${encodeURIComponent(board.id)}/share-comments" class="stack">${csrfField(frame.csrfToken)}
                    <p class="share-comments-state">${board.shareComments ? 'The share link shows the comments below, with their authors’ first names.' : 'The share link shows the assets and their captions, not the comments.'}</p>
                    <button type="submit" class="secondary" name="show" value="${board.shareComments ? '0' : '1'}">${board.shareComments ? 'Hide the comments from the share link' : 'Show the comments with the share link'}</button></form>`
                : ''
            }
          </section>`
        : ''
    }
    <section aria-labelledby="comments-heading"><h2 id="comments-heading">Comments</h2>
      ${
        board.comments.length === 0
          ? html`<p>No comments yet.</p>`
          : html`<ul class="comments">${board.comments.map((comment) => html`<li><p>${comment.text}</p><p class="by">${comment.author} · ${comment.date.replace('T', ' ').slice(0, 16)} UTC</p></li>`)}</ul>`
      }
      ${
        board.canComment
          ? html`<form method="post" action="/boards/${encodeURIComponent(board.id)}/comments" class="stack">
              ${csrfField(frame.csrfToken)}
              <label class="block" for="comment">Add a comment</label>
              <textarea id="comment" name="text" required maxlength="1000"></textarea>
              <button type="submit">Post comment</button>
            </form>`
          : ''
      }
    </section>`;
  return layout(frame, main);
}

export function sharedBoardPage(
  frame: Frame,
  board: { name: string; description: string | null; assets: BoardView['assets']; comments: Array<{ text: string; author: string | null; date: string }> | undefined },
): string {
  const main = html`<h1>${board.name}</h1>
    <p class="note">A board shared with you (read-only).</p>
    ${board.description ? html`<p>${board.description}</p>` : ''}
    ${boardTiles(board.assets, 'Assets on the board', true)}
    ${
      board.comments
        ? html`<section aria-labelledby="comments-heading"><h2 id="comments-heading">Comments</h2>${
            board.comments.length === 0
              ? html`<p>No comments yet.</p>`
              : html`<ul class="comments">${board.comments.map((comment) => html`<li><p>${comment.text}</p><p class="by">${comment.author ?? 'Someone'} · ${comment.date.replace('T', ' ').slice(0, 16)} UTC</p></li>`)}</ul>`
          }</section>`
        : ''
    }`;
  return layout(frame, main);
}

export function invitationPage(frame: Frame, token: string): string {
  const main = html`<h1>Join a board</h1>
    ${
      frame.userName
        ? html`<p>You were invited to add to a board.</p>
            <form method="post" action="/boards/invitations/${encodeURIComponent(token)}">${csrfField(frame.csrfToken)}<button type="submit">Join the board</button></form>`
        : html`<p>You were invited to add to a board. Sign in to join it.</p><p><a class="button" href="/signin?return=${encodeURIComponent(frame.path)}">Sign in</a></p>`
    }`;
  return layout(frame, main);
}

/** Every error a person meets: the status, what went wrong in words, and a way on. Never a stack trace. */
export function errorPage(frame: Frame, status: number, message: string): string {
  const title = status === 404 ? 'Not found' : status === 403 ? 'Not allowed' : status >= 500 ? 'Something went wrong' : 'That did not work';
  const main = html`<h1>${title}</h1>
    <p class="problem" role="alert">${message}</p>
    <p><a href="/">Back to the search</a></p>`;
  return layout({ ...frame, title }, main);
}
