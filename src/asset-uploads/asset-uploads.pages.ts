import { html, type Html } from '../web/web-html.js';
import type { UploadOutcome } from './asset-uploads.service.js';

/** What the file picker offers: the types and extensions ingest reads. */
const ACCEPTED = 'image/jpeg,image/png,image/webp,image/tiff,video/*,.jpg,.jpeg,.png,.webp,.tif,.tiff,.mp4,.mov,.m4v,.mkv,.webm,.avi,.mts,.m2ts,.mxf,.mpg,.mpeg';

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

/** One line of the results: the file, and what came of it. */
function outcomeItem(outcome: UploadOutcome, editPath: string): Html {
  const result =
    outcome.status === 'done' && outcome.asset
      ? html`<a href="${editPath.replace('{id}', encodeURIComponent(outcome.asset.id))}">Draft ${outcome.asset.id}</a>`
      : outcome.status === 'refused'
        ? html`<span class="problem">${outcome.problem ?? 'refused'}</span>`
        : statusWords[outcome.status];
  return html`<li><span class="file-name">${outcome.fileName}</span> <span class="outcome">${result}</span></li>`;
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

/** The upload page's main content: a drop zone that is also a labelled file input, a list of files with their progress, and the latest uploads (the back office frames it). */
export function uploadPageMain(model: UploadPageModel): Html {
  const recent = model.recent.length === 0 ? html`<p>No uploads yet.</p>` : html`<ul class="recent">${model.recent.map((outcome) => outcomeItem(outcome, model.editPath))}</ul>`;
  return html`<div id="uploads" data-endpoint="${model.endpoint}" data-csrf="${model.csrfToken}" data-max-bytes="${model.maxBytes}" data-edit-path="${model.editPath}">
<h1>Upload pictures and videos</h1>
<p>Each file becomes a draft, described by its embedded metadata as <code>stockroom ingest</code> reads it; fill in the rest and publish it from the review queue. A dropped connection resumes where it stopped: drop or choose the same file again.</p>
<form class="drop-zone" id="drop-zone">
<label for="files">Choose pictures and videos, or drop them here</label>
<input type="file" id="files" name="files" multiple accept="${ACCEPTED}">
</form>
<h2 id="sending-heading">This visit’s files</h2>
<ol class="sending" id="sending" aria-labelledby="sending-heading" aria-live="polite"></ol>
<h2>Latest uploads</h2>
${recent}
</div>`;
}
