/**
 * Geolocation: venues' coordinates indexed as (latitude, longitude), so the event and
 * venue lists' `geoloc*` filters read only the venues inside the bounding box of their circle
 * (a range on the latitude, the longitude checked from the index) before the distance cut.
 * `geoloc=1` ("has coordinates") uses it as well. Both columns exist since migration 001.
 */
import type { Kysely } from 'kysely';

export function venueGeoIndexMigration() {
  return {
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createIndex('venues_geo').on('venues').columns(['geo_lat', 'geo_lng', 'post_id']).execute();
    },
  };
}
