/**
 * Arguments we declare beyond the recorded original (issue 14: venue coordinates, the radius of the
 * geolocation filters, the venue list's geolocation filters; issue 11: `sync_token` on the five lists; issue 15: `recurrence` on event writes and
 * `recurrence_scope` on event updates and deletes; `password`: post passwords). Index and /doc tests compare the
 * recorded arguments exactly and allow only these on top.
 *
 * @example recordedOnly(Object.keys(args), Object.keys(recordedArgs))
 */
export const ADDED_ARGS: ReadonlySet<string> = new Set([
  'geo_lat',
  'geo_lng',
  'geoloc',
  'geoloc_lat',
  'geoloc_lng',
  'geoloc_radius',
  'geoloc_unit',
  'sync_token',
  'recurrence',
  'recurrence_scope',
  'password',
]);

/** `names` without our additions that the recorded list does not have (order kept). */
export function recordedOnly(names: readonly string[], recorded: readonly string[]): string[] {
  return names.filter((n) => recorded.includes(n) || !ADDED_ARGS.has(n));
}
