/**
 * HTML templates for every face that renders HTML (pages, submissions, embed): a tagged template
 * that escapes every interpolated value, unless the value is already `SafeHtml` (the result of
 * another `html` template, or markup the caller vouches for with `trusted`, e.g. the stored
 * description after sanitising). Arrays are joined, `null`, `undefined` and `false` render nothing.
 *
 * @example
 *   html`<a href="${url}">${title}</a>`            // both escaped
 *   html`<ul>${items.map((i) => html`<li>${i}</li>`)}</ul>`
 */

/** Markup that is inserted as it is. */
export class SafeHtml {
  readonly value: string;

  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Text for an element or a quoted attribute: `& < > " '` escaped. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

/** Markup vouched for by the caller (sanitised HTML, JSON-LD made safe by `jsonLdScript`). */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

function render(value: unknown): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new SafeHtml(out);
}
