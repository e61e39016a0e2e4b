/**
 * Geolocation arguments of the event and venue lists turned into the store's filter:
 * units, the configured default radius (GEOLOC_RADIUS, GEOLOC_UNIT; the add-on's 25 miles).
 *
 * @example geoFilterOf({ geoloc_lat: 45.46, geoloc_lng: 9.19, geoloc_radius: 10, geoloc_unit: 'km' }, DEFAULT_GEOLOC)?.near?.radiusKm // 10
 */
import { KM_PER_MILE, nearFilter, type NearFilter } from '../store/geo.js';

/** The add-on's default radius: 25 miles. */
export const DEFAULT_GEOLOC = { radius: 25, unit: 'mi' } as const;

/**
 * The geolocation filter of a list's `geoloc*` arguments (events and venues): `geoloc` truthy
 * keeps records whose venue has coordinates; `geoloc_lat` + `geoloc_lng` keep those within
 * `geoloc_radius` `geoloc_unit` (default: the configured radius) of that point. Undefined: none.
 *
 * @example geoFilterOf({ geoloc_lat: 45.46, geoloc_lng: 9.19, geoloc_radius: 10, geoloc_unit: 'km' }, DEFAULT_GEOLOC)?.near?.radiusKm // 10
 */
export function geoFilterOf(
  args: { geoloc?: boolean; geoloc_lat?: number; geoloc_lng?: number; geoloc_radius?: number; geoloc_unit?: 'mi' | 'km' },
  defaults: { radius: number; unit: 'mi' | 'km' },
): { near?: NearFilter } | undefined {
  if (args.geoloc_lat !== undefined && args.geoloc_lng !== undefined) {
    const unit = args.geoloc_unit ?? defaults.unit;
    // A radius given without a unit is in the configured unit.
    const radius = args.geoloc_radius ?? (unit === defaults.unit ? defaults.radius : defaults.unit === 'mi' ? defaults.radius * KM_PER_MILE : defaults.radius / KM_PER_MILE);
    return { near: nearFilter(args.geoloc_lat, args.geoloc_lng, unit === 'mi' ? radius * KM_PER_MILE : radius) };
  }
  if (args.geoloc) return {};
  return undefined;
}
