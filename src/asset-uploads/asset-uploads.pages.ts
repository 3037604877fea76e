import { escapeHtml } from '../platform/http/escape-html.js';
import type { UploadOutcome } from './asset-uploads.service.js';

/** What the upload page links to: its stylesheet, tus's browser client and its own script, each under a versioned address. */
export interface UploadPageFiles {
  stylesheet: string;
  tusClient: string;
  script: string;
}

export interface UploadPageModel {
  csrfToken: string;
  /** The largest file, in bytes: the page refuses larger ones before sending a byte. */
  maxBytes: number;
  /** The person's latest uploads. */
  recent: readonly UploadOutcome[];
  /** The tus endpoint. */
  endpoint: string;
  /** Where an asset's edit page is, `{id}` standing for its id. */
  editPath: string;
}

const e = escapeHtml;

/** One line of the results: the file, and what came of it. */
function outcomeItem(outcome: UploadOutcome, editPath: string): string {
  const result =
    outcome.status === 'done' && outcome.asset
      ? `<a href="${e(editPath.replace('{id}', encodeURIComponent(outcome.asset.id)))}">Draft ${e(outcome.asset.id)}</a>`
      : outcome.status === 'refused'
        ? `<span class="problem">${e(outcome.problem ?? 'refused')}</span>`
        : e(statusWords[outcome.status]);
  return `<li><span class="file-name">${e(outcome.fileName)}</span> <span class="outcome">${result}</span></li>`;
}

const statusWords: Record<UploadOutcome['status'], string> = {
  uploading: 'not finished: drop the same file again to resume it',
  waiting: 'uploaded; waiting to be read',
  ingesting: 'uploaded; being read',
  done: 'a new draft',
  refused: 'refused',
  cancelled: 'cancelled',
  abandoned: 'abandoned (nothing arrived for too long)',
};

/** The upload page: a drop zone that is also a labelled file input, a list of files with their progress, and the latest uploads. */
export function uploadPage(files: UploadPageFiles, model: UploadPageModel): string {
  const recent = model.recent.length === 0 ? '<p>No uploads yet.</p>' : `<ul class="recent">${model.recent.map((outcome) => outcomeItem(outcome, model.editPath)).join('')}</ul>`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Upload — Stockroom back office</title>
<link rel="stylesheet" href="${e(files.stylesheet)}">
<script src="${e(files.tusClient)}" defer></script>
<script src="${e(files.script)}" defer></script>
</head>
<body>
<header class="top"><a class="brand" href="/admin">Stockroom back office</a></header>
<main id="uploads" data-endpoint="${e(model.endpoint)}" data-csrf="${e(model.csrfToken)}" data-max-bytes="${model.maxBytes}" data-edit-path="${e(model.editPath)}">
<h1>Upload pictures and videos</h1>
<p>Each file becomes a draft, described by its embedded metadata as <code>stockroom ingest</code> reads it; fill in the rest and publish it from the review queue. A dropped connection resumes where it stopped: drop or choose the same file again.</p>
<form class="drop-zone" id="drop-zone">
<label for="files">Choose pictures and videos, or drop them here</label>
<input type="file" id="files" name="files" multiple accept="image/jpeg,image/png,image/webp,image/tiff,video/*,.jpg,.jpeg,.png,.webp,.tif,.tiff,.mp4,.mov,.m4v,.mkv,.webm,.avi,.mts,.m2ts,.mxf,.mpg,.mpeg">
</form>
<h2 id="sending-heading">This visit’s files</h2>
<ol class="sending" id="sending" aria-labelledby="sending-heading" aria-live="polite"></ol>
<h2>Latest uploads</h2>
${recent}
</main>
</body>
</html>
`;
}
