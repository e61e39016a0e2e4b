/**
 * Escaping for the embed face's HTML: every interpolated value goes through `esc` (text and
 * attribute values alike), and `Html` marks markup already made safe.
 *
 * @example html`<a href="${url}">${title}</a>` // both escaped
 */
export class Html {
  readonly value: string;

  constructor(value: string) {
    this.value = value;
  }
  toString(): string {
    return this.value;
  }
}

/** Escape text for an element's content or a quoted attribute value. */
export function esc(value: unknown): string {
  return String(value ?? '').replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

type Part = Html | string | number | boolean | null | undefined | Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return esc(part);
}

/** A template whose interpolations are escaped (arrays joined, Html kept as it is). */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  values.forEach((v, i) => (out += render(v) + strings[i + 1]!));
  return new Html(out);
}
