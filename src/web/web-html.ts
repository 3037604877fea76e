import { escapeHtml } from '../platform/http/escape-html.js';

/*
 * HTML written with a tagged template that escapes every value it is given, unless the value
 * is itself HTML made by the template: a page cannot forget to escape a title or a caption.
 */

export class Html {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }
}

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === undefined || value === null || value === false) return '';
  return escapeHtml(String(value));
}

/** HTML from a template: strings as written, values escaped (arrays joined, undefined/null/false left out). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Text known to be HTML already (the stylesheet's hash, a built page part). */
export function raw(text: string): Html {
  return new Html(text);
}
