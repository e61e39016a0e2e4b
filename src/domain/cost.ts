/**
 * The Events Calendar's cost handling: what the REST API stores for a `cost` input
 * (`_EventCost` values, `_EventCurrencySymbol`, `_EventCurrencyPosition`) and how it renders
 * `cost` / `cost_details` back (`Tribe__Cost_Utils`, `Tribe__Events__Cost_Utils`,
 * `tribe_format_currency`, the REST post repository). Pure functions.
 */
import { sanitizeSlug } from './slugs.js';
import { stripTags } from './text/tags.js';
import { wpSpecialchars } from './text/entities.js';

export interface CostDetails {
  currency_symbol: string;
  currency_code: string;
  currency_position: '' | 'prefix' | 'postfix';
  values: string[];
}

/**
 * The site's currency for a number typed without one (the original's `defaultCurrencySymbol` and
 * `reverseCurrencyPosition` options): the event's own stored symbol and side come first.
 */
export interface CurrencyDefaults {
  symbol: string;
  position: 'prefix' | 'suffix';
}

/** TEC's cost-range separator (`_x( ' – ', 'Cost range separator' )`). */
const RANGE_SEPARATOR = ' \u2013 ';

/** PHP `is_numeric()` for strings. */
function isNumeric(value: string): boolean {
  return /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[ \t\n\r\v\f]*$/.test(value);
}

/** PHP `(float)` cast of a string (leading number, else 0). */
function toFloat(value: string): number {
  const m = /^[ \t\n\r\v\f]*[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/.exec(value);
  return m ? Number(m[0]) : 0;
}

/** PHP `trim()`. */
function phpTrim(text: string): string {
  return text.replace(/^[ \t\n\r\0\x0B]+|[ \t\n\r\0\x0B]+$/g, '');
}

/** PHP 8 comparison of two array keys (numeric strings compare numerically). */
function compareKeys(a: string, b: string): number {
  if (isNumeric(a) && isNumeric(b)) return Number(a) - Number(b);
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `number_format($n, $decimals)` with the separators removed: a digits-only sort index. */
function numericIndex(value: string, decimals: number): string {
  const n = Number(value);
  const rounded = Number(`${Math.round(Number(`${n}e${decimals}`))}e-${decimals}`);
  return (Number.isFinite(rounded) ? rounded : n).toFixed(decimals).replace('.', '');
}

/**
 * `Tribe__Cost_Utils::parse_cost_range()`: the numbers found in each cost string (or the string
 * itself when it has none), keyed by a sortable index (numbers) or a slug (labels).
 */
function parseCostRange(costs: string[], sort = true): Map<string, string> {
  const pieces: string[] = [];
  let maxDecimals = 0;
  for (const cost of costs) {
    const matches = [...cost.matchAll(/[,.]?(\d+)[,.]?(\d*)/g)];
    if (matches.length === 0) {
      pieces.push(cost);
      continue;
    }
    for (const m of matches) {
      pieces.push(m[0]);
      maxDecimals = Math.max(maxDecimals, m[2]!.length);
    }
  }
  const output = new Map<string, string>();
  for (const piece of pieces) {
    const numeric = piece.replace(/[,.]/g, '.');
    const index = isNumeric(numeric) ? numericIndex(numeric, maxDecimals) : sanitizeSlug(numeric);
    output.set(index, piece);
  }
  if (!sort) return output;
  return new Map([...output.entries()].sort(([a], [b]) => compareKeys(a, b)));
}

/** `parse_currency_symbol()`: the symbol shared by all numeric costs, or false. */
function parseCurrencySymbol(original: string[]): string | false {
  const costs = parseCostRange(original, false);
  if (costs.size === 0) return false;
  const symbols: string[] = [];
  let i = 0;
  for (const [key, value] of costs) {
    if (isNumeric(key)) {
      const symbol = phpTrim((original[i] ?? '').split(value).join(''));
      symbols.push(symbol);
      if (symbol !== symbols[0]) return false;
    }
    i++;
  }
  return symbols.length > 0 ? symbols[0]! : false;
}

/** `parse_currency_position()`: where that symbol sits, or false. */
function parseCurrencyPosition(original: string[], symbol: string | false): 'prefix' | 'postfix' | false {
  if (symbol === false || symbol === '' || symbol === '0') return false;
  const positions: Array<'prefix' | 'postfix'> = [];
  for (const cost of original) {
    const at = phpTrim(cost).indexOf(symbol);
    if (at === -1) continue;
    positions.push(at === 0 ? 'prefix' : 'postfix');
    if (positions[positions.length - 1] !== positions[0]) return false;
  }
  return positions[0] ?? false;
}

/** One scalar REST value as PHP would stringify it; undefined for unusable values. */
function scalarToString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : undefined;
  if (typeof value === 'boolean') return value ? '1' : '';
  return undefined;
}

/**
 * What to store from a REST `cost` input (string, number, or array of those). Returns null when the
 * input is empty/falsy ('' , 0, '0', null, [], false, whitespace) meaning "no cost". `raw` holds the
 * `_EventCost` values (tags stripped from a single string; one value per array item), `symbol` and
 * `position` are TEC's inferred `_EventCurrencySymbol` / `_EventCurrencyPosition` ('' when none or
 * inconsistent).
 *
 * @example parseCostInput('€15.50') // { raw: ['€15.50'], symbol: '€', position: 'prefix' }
 */
export function parseCostInput(input: unknown): { raw: string[]; symbol: string; position: '' | 'prefix' | 'postfix' } | null {
  let original: string[];
  let raw: string[];
  if (Array.isArray(input)) {
    original = input.map((v) => scalarToString(v) ?? '');
    raw = original.filter((v) => phpTrim(v) !== '');
  } else {
    const value = scalarToString(input);
    if (value === undefined || value === '0') return null;
    original = value.split(/\s*,\s*/);
    raw = [stripTags(value)].filter((v) => v !== '');
  }
  if (raw.length === 0) return null;
  const symbol = parseCurrencySymbol(original);
  const position = parseCurrencyPosition(original, symbol);
  // The REST endpoint array_filter()s its post array, so a falsy symbol ('' or '0') is never stored.
  const stored = symbol === false || symbol === '0' ? '' : symbol;
  return { raw, symbol: stored, position: stored === '' || position === false ? '' : position };
}

/** `get_cost_by_func()`: the min/max numeric cost, a lone label, or 0. */
function costBy(costs: Map<string, string>, fn: 'min' | 'max'): string | 0 {
  const entries = [...costs.values()];
  if (entries.length === 1 && !isNumeric(entries[0]!)) return entries[0]!;
  const numeric = entries.filter(isNumeric);
  if (numeric.length === 0) return 0;
  let pick = numeric[0]!;
  for (const value of numeric) {
    if (fn === 'min' ? Number(value) < Number(pick) : Number(value) > Number(pick)) pick = value;
  }
  return pick === '' || pick === '0' ? 0 : pick;
}

/** PHP `==` between two strings. */
function looseEquals(a: string, b: string): boolean {
  return a === b || (isNumeric(a) && isNumeric(b) && Number(a) === Number(b));
}

/**
 * The formatted `cost` string and `cost_details` for stored raw values + stored symbol/position,
 * as TEC's REST API renders them: numbers get the event's symbol (or the site's, `defaults`) on the
 * event's side (or the site's), 0 reads "Free", a lone label prints as entered, several values print as
 * `min – max`; `values` are sorted numerically, numbers normalised (`1,000` → `1000`), labels
 * slugged (`Free` → `free`).
 *
 * @example formatCost(['0$', '20$', '30$'], '$', 'postfix').cost // 'Free – 30$'
 */
export function formatCost(
  raw: string[],
  symbol: string,
  position: '' | 'prefix' | 'postfix',
  defaults: CurrencyDefaults = { symbol: '$', position: 'prefix' },
): { cost: string; cost_details: CostDetails } {
  // Tribe__Events__Cost_Utils::get_event_costs(): one parse per stored value, first key wins.
  const costs = new Map<string, string>();
  for (const value of raw) {
    if (value === '') continue;
    for (const [key, cost] of parseCostRange([value])) if (!costs.has(key)) costs.set(key, cost);
  }

  // Tribe__Events__REST__V1__Post_Repository::get_cost_values().
  const values = [...costs.entries()]
    .map(([key, value]) => {
      const normalised = value.replace(/,/g, '');
      return isNumeric(normalised) ? normalised : key;
    })
    .sort((a, b) => toFloat(a) - toFloat(b));

  const cost_details: CostDetails = { currency_symbol: symbol, currency_code: '', currency_position: position, values };
  if (costs.size === 0) return { cost: '', cost_details };

  // Tribe__Events__Cost_Utils::get_formatted_event_cost( $event, true ).
  const render = (value: string | 0): string => {
    let out = value === 0 || value === '0' ? 'Free' : value;
    if (isNumeric(out.replace(/[,.]/g, ''))) {
      const currency = symbol || defaults.symbol;
      out = (position || defaults.position) === 'prefix' ? currency + out : out + currency;
    }
    return wpSpecialchars(out, 'both');
  };
  const min = render(costBy(costs, 'min'));
  const max = render(costBy(costs, 'max'));
  return { cost: looseEquals(min, max) ? min : `${min}${RANGE_SEPARATOR}${max}`, cost_details };
}

/**
 * A cost as it was typed (the stored `_EventCost` values, one line of text): what an editor loads
 * back, so that saving again stores what was typed. Several values (an API client's array) are
 * joined with ", ".
 *
 * @example typedCost(['€5 suggested donation']) // '€5 suggested donation'
 */
export function typedCost(raw: string[]): string {
  return raw.filter((v) => v !== '').join(', ');
}

/**
 * The cost as this service's own faces show it (pages, the iframe view, the FullCalendar source and
 * the component), HTML-escaped as the REST `cost` is: a cost made of numbers only (`15`, `["10",
 * "20"]`) as the original renders it (`$15`, `$10 – $20`), any other as typed. The original's
 * rendering takes every number out of a text and the rest as its currency symbol, so
 * "€5 suggested donation" reads "€ suggested donation5": the legacy `cost` keeps that (it is the
 * wire format), the faces people read do not.
 *
 * @example shownCost(['€5 suggested donation'], '€ suggested donation5') // '€5 suggested donation'
 * @example shownCost(['10', '20'], '$10 – $20') // '$10 – $20'
 */
export function shownCost(raw: string[], formatted: string): string {
  const values = raw.filter((v) => v !== '');
  if (values.every((v) => isNumeric(v.replace(/,/g, '')))) return formatted;
  return wpSpecialchars(typedCost(values), 'both');
}
