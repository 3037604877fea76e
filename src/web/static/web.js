/* global document, window, HTMLSelectElement, HTMLDialogElement, Element */
// The catalogue browser's one script, served from this server (the policy allows no inline script).
// Everything works without it; it only saves clicks: a changed sort order applies at once, a
// board's links can be copied with a button, a video card plays its clip, and a quick look shows a result large.
document.addEventListener('change', (event) => {
  const target = event.target;
  if (target instanceof HTMLSelectElement && target.dataset.autosubmit !== undefined && target.form) target.form.requestSubmit();
});
document.addEventListener('click', (event) => {
  const button = event.target instanceof Element ? event.target.closest('button[data-copy]') : null;
  if (!button) return;
  const field = document.getElementById(button.getAttribute('data-copy'));
  if (!field || !navigator.clipboard) return;
  navigator.clipboard.writeText(field.value).then(
    () => {
      button.textContent = 'Copied';
    },
    () => {
      field.select();
    },
  );
});
for (const button of document.querySelectorAll('button[data-copy]')) button.hidden = false;
// On a phone the refinements start folded, so the results come first; without script they stay open.
if (window.matchMedia('(max-width: 48rem)').matches) {
  for (const details of document.querySelectorAll('.filters details[open]')) details.open = false;
}
// A video card plays its watermarked preview clip, muted, while it is hovered or has the focus.
function playClip(card) {
  const frame = card.querySelector('.frame');
  if (!frame || frame.querySelector('video')) return;
  const video = document.createElement('video');
  video.src = card.dataset.clip;
  video.muted = true;
  video.loop = true;
  video.playsInline = true;
  video.setAttribute('aria-hidden', 'true');
  frame.append(video);
  video.play().catch(() => video.remove());
}
function stopClip(card) {
  for (const video of card.querySelectorAll('.frame video')) video.remove();
}
for (const card of document.querySelectorAll('.card[data-clip]')) {
  card.addEventListener('mouseenter', () => playClip(card));
  card.addEventListener('mouseleave', () => stopClip(card));
  card.addEventListener('focusin', () => playClip(card));
  card.addEventListener('focusout', (event) => {
    if (!card.contains(event.relatedTarget)) stopClip(card);
  });
}
// Quick look: a card's comp large in a dialog, with its facts; left and right arrows go through
// the results, Escape (the dialog's own) goes back to the card it came from.
const quickLookCards = [...document.querySelectorAll('.card')].filter((card) => card.querySelector('[data-quick-look]'));
if (quickLookCards.length > 0 && typeof HTMLDialogElement === 'function') {
  const dialog = document.createElement('dialog');
  dialog.className = 'lightbox';
  dialog.setAttribute('aria-label', 'Quick look');
  const stage = document.createElement('div');
  stage.className = 'stage-large';
  const picture = document.createElement('img');
  stage.append(picture);
  const about = document.createElement('div');
  about.className = 'about';
  const title = document.createElement('a');
  const facts = document.createElement('span');
  facts.className = 'facts';
  const controls = document.createElement('div');
  controls.className = 'controls';
  const button = (text, label) => {
    const made = document.createElement('button');
    made.type = 'button';
    made.textContent = text;
    made.setAttribute('aria-label', label);
    controls.append(made);
    return made;
  };
  const previous = button('←', 'Previous result');
  const next = button('→', 'Next result');
  const close = button('Close', 'Close quick look');
  about.append(title, facts, controls);
  dialog.append(stage, about);
  document.body.append(dialog);
  let shown = 0;
  let opener;
  const show = (index) => {
    shown = (index + quickLookCards.length) % quickLookCards.length;
    const card = quickLookCards[shown];
    const image = card.querySelector('.frame img');
    const link = card.querySelector('.title');
    // The comp, with its full watermark: the grid's picture is marked only lightly.
    picture.src = card.dataset.comp || image.src;
    picture.alt = link.textContent;
    picture.width = image.width;
    picture.height = image.height;
    title.href = link.href;
    title.textContent = link.textContent;
    facts.textContent = [card.querySelector('.meta'), card.querySelector('.facts')].filter(Boolean).map((part) => part.textContent).join(' · ');
  };
  quickLookCards.forEach((card, index) => {
    const opening = card.querySelector('[data-quick-look]');
    opening.hidden = false;
    opening.addEventListener('click', () => {
      opener = opening;
      show(index);
      dialog.showModal();
      next.focus();
    });
  });
  previous.addEventListener('click', () => show(shown - 1));
  next.addEventListener('click', () => show(shown + 1));
  close.addEventListener('click', () => dialog.close());
  dialog.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowLeft') show(shown - 1);
    else if (event.key === 'ArrowRight') show(shown + 1);
    else return;
    event.preventDefault();
  });
  dialog.addEventListener('close', () => {
    const back = quickLookCards[shown].querySelector('[data-quick-look]');
    (back ?? opener)?.focus();
  });
}
// Suggestions as the search field is typed in: the server completes the last word from the
// catalogue's vocabulary; the browser's own list (a datalist) shows them.
for (const field of document.querySelectorAll('input[data-suggest]')) {
  const list = document.getElementById(field.getAttribute('list'));
  let timer;
  let asked = '';
  field.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      const phrase = field.value;
      if (phrase === asked) return;
      asked = phrase;
      fetch(`/suggestions?phrase=${encodeURIComponent(phrase)}`, { headers: { accept: 'application/json' } })
        .then((response) => (response.ok ? response.json() : { suggestions: [] }))
        .then(({ suggestions }) => {
          if (field.value !== phrase) return;
          list.replaceChildren(
            ...suggestions.map((suggestion) => {
              const option = document.createElement('option');
              option.value = suggestion;
              return option;
            }),
          );
        })
        .catch(() => undefined);
    }, 150);
  });
}
// A board's owner drags a card to its place: the drop sends the board's own move form (the
// buttons on each card do the same a place at a time, without script or mouse).
const boardOrder = document.querySelector('[data-board-order]');
const moveForm = document.getElementById('board-move');
if (boardOrder && moveForm) {
  let dragged = null;
  boardOrder.addEventListener('dragstart', (event) => {
    dragged = event.target instanceof Element ? event.target.closest('li[data-asset-id]') : null;
    if (dragged && event.dataTransfer) {
      event.dataTransfer.effectAllowed = 'move';
      event.dataTransfer.setData('text/plain', dragged.dataset.assetId);
    }
  });
  boardOrder.addEventListener('dragover', (event) => {
    if (dragged) event.preventDefault();
  });
  boardOrder.addEventListener('drop', (event) => {
    const target = event.target instanceof Element ? event.target.closest('li[data-asset-id]') : null;
    if (!dragged || !target || target === dragged) return;
    event.preventDefault();
    const cards = [...boardOrder.querySelectorAll('li[data-asset-id]')];
    moveForm.elements.namedItem('asset_id').value = dragged.dataset.assetId;
    moveForm.elements.namedItem('to').value = String(cards.indexOf(target));
    moveForm.submit();
  });
}
