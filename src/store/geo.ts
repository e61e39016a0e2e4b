/**
 * Geolocation filters: "within this distance of a point" on a sphere of radius
 * 6371 km, as two steps that both stores run in SQL without extensions:
 *
 * 1. a bounding box on the venues' indexed coordinate columns (`venues_geo`, migration 009): the
 *    latitude band of the circle and the longitude range its widest point reaches, split in two
 *    when it crosses the antimeridian, the whole longitude range when the circle contains a pole;
 * 2. the exact great-circle cut, the haversine of the central angle compared with the haversine
 *    of the radius (`hav(θ) <= hav(d/R)`, no `asin` needed), computed in SQL with `sin`/`cos`.
 *
 * `withinRadius` is the same computation in JavaScript: the event list's kept totals decide with
 * it whether a changed event falls into a kept geo-filtered list (`matchesFilter`).
 *
 * @example
 *   const near = nearFilter(48.8566, 2.3522, 40); // 40 km around Paris
 *   withinRadius(near, 48.86, 2.35) // true
 */
import { sql, type RawBuilder } from 'kysely';

export const EARTH_RADIUS_KM = 6371;
/** Kilometres per statute mile. */
export const KM_PER_MILE = 1.609344;
const RAD = Math.PI / 180;
const HALF_RAD = RAD / 2;
/** Degrees added around the box, so rounding never lets it cut a point the distance keeps. */
const BOX_MARGIN = 1e-9;

/** A circle on the sphere, with what its SQL needs precomputed. */
export interface NearFilter {
  lat: number;
  lng: number;
  radiusKm: number;
  /** hav(radiusKm / R): the largest haversine of the central angle inside the circle */
  maxHav: number;
  /** the bounding box: latitude band and one or two longitude ranges */
  box: { latMin: number; latMax: number; lngRanges: Array<[number, number]> };
}

/** Longitude in [-180, 180). */
function wrapLng(lng: number): number {
  const w = ((((lng + 180) % 360) + 360) % 360) - 180;
  return w;
}

/**
 * The circle of `radiusKm` around (lat, lng): its haversine bound and bounding box.
 *
 * @example nearFilter(0, 179.9, 50).box.lngRanges // [[179.45…, 180], [-180, -179.65…]]
 */
export function nearFilter(lat: number, lng: number, radiusKm: number): NearFilter {
  const angle = radiusKm / EARTH_RADIUS_KM; // central angle, radians
  const h = Math.sin(Math.min(angle, Math.PI) / 2);
  const maxHav = h * h;
  const dLat = angle / RAD + BOX_MARGIN;
  const latMin = lat - dLat;
  const latMax = lat + dLat;
  let lngRanges: Array<[number, number]>;
  if (angle >= Math.PI / 2 || latMax >= 90 || latMin <= -90) {
    // The circle contains a pole (or a hemisphere): every longitude.
    lngRanges = [[-180, 180]];
  } else {
    // The meridians tangent to the circle (the widest longitude it reaches).
    const dLng = Math.asin(Math.min(1, Math.sin(angle) / Math.cos(lat * RAD))) / RAD + BOX_MARGIN;
    const from = lng - dLng;
    const to = lng + dLng;
    if (dLng >= 180) lngRanges = [[-180, 180]];
    else if (from < -180)
      lngRanges = [
        [wrapLng(from), 180],
        [-180, to],
      ];
    else if (to > 180)
      lngRanges = [
        [from, 180],
        [-180, wrapLng(to)],
      ];
    else lngRanges = [[from, to]];
  }
  return { lat, lng, radiusKm, maxHav, box: { latMin: Math.max(-90, latMin), latMax: Math.min(90, latMax), lngRanges } };
}

/** hav(central angle) between two points in degrees: the quantity the SQL compares too. */
export function haversine(lat1: number, lng1: number, lat2: number, lng2: number): number {
  // The same operations in the same order as nearCondition's SQL.
  const a = Math.sin((lat2 - lat1) * HALF_RAD);
  const b = Math.sin((lng2 - lng1) * HALF_RAD);
  return a * a + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * (b * b);
}

/** Great-circle distance in km (R = 6371 km). */
export function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(haversine(lat1, lng1, lat2, lng2))));
}

/** Whether a point lies inside the circle: the box, then the great-circle cut (as the SQL). */
export function withinRadius(near: NearFilter, lat: number, lng: number): boolean {
  const { box } = near;
  if (!(lat >= box.latMin && lat <= box.latMax)) return false;
  if (!box.lngRanges.some(([a, b]) => lng >= a && lng <= b)) return false;
  return haversine(near.lat, near.lng, lat, lng) <= near.maxHav;
}

/**
 * The SQL condition "these coordinate columns lie inside the circle": the box on the indexed
 * columns, then the haversine cut. Plain `sin`/`cos` exist on PostgreSQL and on SQLite builds with
 * its math functions (the store registers them otherwise, `db.ts`).
 */
export function nearCondition(near: NearFilter, latCol: string, lngCol: string): RawBuilder<boolean> {
  const lat = sql.ref(latCol);
  const lng = sql.ref(lngCol);
  const { box } = near;
  // Parameters typed as double precision on both stores (SQLite reads the cast as REAL).
  const num = (n: number) => sql`cast(${n} as double precision)`;
  const ranges = box.lngRanges.map(([a, b]) => sql`(${lng} >= ${num(a)} and ${lng} <= ${num(b)})`);
  const lngCond = ranges.length === 1 ? ranges[0]! : sql`(${sql.join(ranges, sql` or `)})`;
  const sinLat = sql`sin((${lat} - ${num(near.lat)}) * ${num(HALF_RAD)})`;
  const sinLng = sql`sin((${lng} - ${num(near.lng)}) * ${num(HALF_RAD)})`;
  const hav = sql`${sinLat} * ${sinLat} + ${num(Math.cos(near.lat * RAD))} * cos(${lat} * ${num(RAD)}) * (${sinLng} * ${sinLng})`;
  return sql<boolean>`(${lat} >= ${num(box.latMin)} and ${lat} <= ${num(box.latMax)} and ${lngCond} and ${hav} <= ${num(near.maxHav)})`;
}
