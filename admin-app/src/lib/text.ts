/** Text the API answers as HTML (an event's title, with entities such as `&#8217;`) as plain text, for a label or an option. */
export function textOf(html: string): string {
  return new DOMParser().parseFromString(html, 'text/html').documentElement.textContent ?? html;
}
