/* global document, window */
// The upload page's script, served from this server (the policy allows no inline script). Each
// file goes up through tus (tus-js-client, served beside it): in chunks, retried after a dropped
// connection, and resumed from where it stopped when the same file is given again later (the
// client keeps each upload's address in the browser's storage under the file's fingerprint).
(() => {
  const root = document.getElementById('uploads');
  const input = document.getElementById('files');
  const zone = document.getElementById('drop-zone');
  const list = document.getElementById('sending');
  if (!root || !input || !zone || !list || !window.tus) return;
  const { endpoint, csrf, editPath } = root.dataset;
  const maxBytes = Number(root.dataset.maxBytes);
  // Each PATCH carries at most this much: it ends well within the server's request timeout, and is one part of a bucket's multipart upload.
  const CHUNK_BYTES = 8 * 1024 * 1024;
  let counter = 0;

  /** A line for a file: its name, a labelled progress bar, and where its outcome is written. */
  function lineFor(file) {
    counter += 1;
    const item = document.createElement('li');
    const label = document.createElement('label');
    label.htmlFor = `upload-progress-${counter}`;
    label.textContent = file.name;
    label.className = 'file-name';
    const progress = document.createElement('progress');
    progress.id = `upload-progress-${counter}`;
    progress.max = 100;
    progress.value = 0;
    const status = document.createElement('span');
    status.className = 'outcome';
    status.textContent = 'waiting to start';
    item.append(label, progress, status);
    list.append(item);
    return { item, progress, status };
  }

  /** The refusal's message, from the body the server answers: tus's `Code: message`, or the back office's JSON `{ code, message }` (signed out, an expired page). */
  function messageOf(error) {
    const response = error && error.originalResponse;
    const body = response ? response.getBody() : '';
    if (!body) return 'the connection was lost; give the same file again to resume';
    try {
      const answer = JSON.parse(body);
      if (answer && typeof answer.message === 'string') return answer.message;
    } catch {
      // not JSON: tus's own one-line refusal
    }
    return body.replace(/^[A-Za-z]+: /, '').trim();
  }

  function showOutcome(line, outcome) {
    line.status.textContent = '';
    if (outcome.status === 'done' && outcome.asset) {
      const link = document.createElement('a');
      link.href = editPath.replace('{id}', encodeURIComponent(outcome.asset.id));
      link.textContent = `Draft ${outcome.asset.id}`;
      line.status.className = 'outcome done';
      line.status.append('Done: ', link);
    } else {
      line.status.className = 'outcome problem';
      line.status.textContent = `Refused: ${outcome.problem || 'it could not be ingested'}`;
    }
  }

  /** Asks what came of an upload until its ingest is over. */
  function followIngest(line, uploadId) {
    line.status.textContent = 'uploaded; reading the file…';
    const ask = () =>
      fetch(`${endpoint.replace(/\/files$/, '/results')}?ids=${encodeURIComponent(uploadId)}`, { credentials: 'same-origin', headers: { accept: 'application/json' } })
        .then((response) => (response.ok ? response.json() : { uploads: [] }))
        .then((answer) => {
          const outcome = answer.uploads.find((candidate) => candidate.id === uploadId);
          if (outcome && (outcome.status === 'done' || outcome.status === 'refused')) showOutcome(line, outcome);
          else setTimeout(ask, 1000);
        })
        .catch(() => setTimeout(ask, 3000));
    ask();
  }

  function send(file) {
    const line = lineFor(file);
    if (file.size > maxBytes) {
      line.status.className = 'outcome problem';
      line.status.textContent = `Refused: larger than the ${Math.floor(maxBytes / 1048576)} MB the server takes`;
      return;
    }
    const upload = new window.tus.Upload(file, {
      endpoint,
      chunkSize: CHUNK_BYTES,
      retryDelays: [0, 1000, 3000, 5000, 10000, 20000],
      headers: { 'X-CSRF-Token': csrf },
      metadata: { filename: file.name, filetype: file.type || 'application/octet-stream' },
      removeFingerprintOnSuccess: true,
      onProgress(sent, total) {
        line.progress.value = total > 0 ? Math.floor((sent / total) * 100) : 100;
        line.status.textContent = `${line.progress.value}% sent`;
      },
      onError(error) {
        line.status.className = 'outcome problem';
        line.status.textContent = `Refused: ${messageOf(error)}`;
      },
      onSuccess() {
        line.progress.value = 100;
        followIngest(line, new URL(upload.url, window.location.href).pathname.split('/').pop());
      },
    });
    upload.findPreviousUploads().then((previous) => {
      if (previous.length > 0) {
        upload.resumeFromPreviousUpload(previous[0]);
        line.status.textContent = 'resuming';
      }
      upload.start();
    });
  }

  const sendAll = (files) => {
    for (const file of Array.from(files)) send(file);
  };
  input.addEventListener('change', () => {
    sendAll(input.files);
    input.value = '';
  });
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    zone.classList.add('over');
  });
  zone.addEventListener('dragleave', () => zone.classList.remove('over'));
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    zone.classList.remove('over');
    if (event.dataTransfer) sendAll(event.dataTransfer.files);
  });
})();
