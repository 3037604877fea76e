/* global document, window, HTMLSelectElement, Element */
// The catalogue browser's one script, served from this server (the policy allows no inline script).
// Everything works without it; it only saves a click: a changed sort order applies at once, and a
// board's links can be copied with a button.
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
