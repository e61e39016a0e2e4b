/**
 * A calendar's quotas between the API and the Quotas form (docs/calendars.md, "Quotas"): the API
 * holds whole numbers by name, `media_bytes` in bytes, and a quota the calendar does not name is
 * the installation's default; `0` is no limit. The form shows one text per quota: empty for the
 * installation's default, images in MB.
 *
 * The form validates nothing itself: what is no number is sent as typed, so that the API's
 * `rest_invalid_param` (its `details.quotas.data.quota`) names the field, one rule in one place.
 *
 * @example
 *   quotaText('media_bytes', 5242880, 'en') // '5'
 *   quotasBody({ events: '1', media_bytes: '' }, {}, 'en') // { events: 1 }
 */
export const QUOTA_NAMES = ['events', 'media_bytes', 'requests_per_minute', 'webhook_endpoints', 'submissions_per_day', 'sync_history_days'] as const;
export type QuotaName = (typeof QUOTA_NAMES)[number];
export type Quotas = Partial<Record<QuotaName, number>>;
export type QuotaTexts = Record<QuotaName, string>;

const MB = 1024 * 1024;

/** What a field shows for a stored quota: '' when the calendar names none; images in MB (two decimals at most). */
export function quotaText(name: QuotaName, value: number | undefined, locale: string): string {
  if (value === undefined) return '';
  if (name !== 'media_bytes') return String(value);
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 2, useGrouping: false }).format(value / MB);
}

/** Every field's text for a calendar's quotas. */
export function quotaTexts(quotas: Quotas, locale: string): QuotaTexts {
  return Object.fromEntries(QUOTA_NAMES.map((name) => [name, quotaText(name, quotas[name], locale)])) as QuotaTexts;
}

/**
 * The value sent for what a field holds: undefined when empty (the installation's default), a
 * number when it reads as one ("1,5" as "1.5", spaces between digits ignored; MB made bytes), else
 * the text as typed, which the API refuses with the field's error.
 */
export function quotaValue(name: QuotaName, text: string): number | string | undefined {
  const typed = text.trim();
  if (typed === '') return undefined;
  const plain = typed.replace(/[\s\u00a0\u202f]/g, '').replace(',', '.');
  if (!/^[-+]?(\d+\.?\d*|\.\d+)$/.test(plain)) return typed;
  const n = Number(plain);
  if (name !== 'media_bytes') return n;
  // A positive size never becomes 0 (no limit) by rounding.
  return n > 0 ? Math.max(1, Math.round(n * MB)) : Math.round(n * MB);
}

/**
 * The `quotas` to send (they replace the calendar's): each field's value, a field left as shown
 * keeping its stored value exactly (MB are shown rounded).
 */
export function quotasBody(texts: Partial<QuotaTexts>, saved: Quotas, locale: string): Record<string, number | string> {
  const out: Record<string, number | string> = {};
  for (const name of QUOTA_NAMES) {
    const text = texts[name] ?? '';
    const stored = saved[name];
    const value = stored !== undefined && text === quotaText(name, stored, locale) ? stored : quotaValue(name, text);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** The quota a `rest_invalid_param` of `quotas` names (`data.details.quotas.data.quota`), if one of the form's. */
export function quotaOfProblem(data: Record<string, unknown> | undefined): QuotaName | undefined {
  const details = data?.details as Record<string, { data?: { quota?: unknown } }> | undefined;
  const quota = details && typeof details === 'object' && !Array.isArray(details) ? details.quotas?.data?.quota : undefined;
  return QUOTA_NAMES.find((name) => name === quota);
}

/** What the API answers of a calendar's use of its quotas (`GET calendars/{id}/usage`). */
export type QuotaUsage = Record<QuotaName, { limit: number; used: number | null }>;

/**
 * What a field says of its quota's use: the catalogue key and its values, numbers in the locale
 * (images in MB); none for a quota with no one number of use (requests a minute).
 */
export function quotaUsage(name: QuotaName, usage: QuotaUsage | undefined, locale: string): { key: string; vars: Record<string, string> } | undefined {
  const u = usage?.[name];
  if (!u || u.used === null) return undefined;
  const format = new Intl.NumberFormat(locale, { maximumFractionDigits: 2 });
  const shown = (v: number) => format.format(name === 'media_bytes' ? v / MB : v);
  // The sync history's quota caps a setting: what is used is the days the setting asks for, of which the calendar keeps at most the limit.
  if (name === 'sync_history_days') return { key: 'calendars.quotas.historySetting', vars: { used: shown(u.used), kept: shown(u.limit > 0 ? Math.min(u.used, u.limit) : u.used) } };
  return u.limit > 0 ? { key: 'calendars.quotas.usedOf', vars: { used: shown(u.used), limit: shown(u.limit) } } : { key: 'calendars.quotas.usedNoLimit', vars: { used: shown(u.used) } };
}
