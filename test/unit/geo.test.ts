import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { distanceKm, haversine, nearFilter, withinRadius, EARTH_RADIUS_KM } from '../../src/store/geo.js';
import { DEFAULT_GEOLOC, geoFilterOf } from '../../src/domain/geo.js';

describe('great-circle distance (R = 6371 km)', () => {
  it('matches known distances', () => {
    assert.ok(Math.abs(distanceKm(48.8566, 2.3522, 51.5074, -0.1278) - 343.6) < 0.5); // Paris-London
    assert.ok(Math.abs(distanceKm(0, 0, 0, 180) - Math.PI * EARTH_RADIUS_KM) < 1e-6);
    assert.ok(Math.abs(distanceKm(90, 0, -90, 0) - Math.PI * EARTH_RADIUS_KM) < 1e-6);
    assert.equal(distanceKm(12, 34, 12, 34), 0);
    assert.ok(Math.abs(distanceKm(-17, 179.95, -17, -179.95) - 10.63) < 0.05); // across the antimeridian
    assert.equal(haversine(0, 0, 0, 0), 0);
  });
});

describe('nearFilter: the bounding box', () => {
  it('one longitude range away from the antimeridian and the poles', () => {
    const { box } = nearFilter(0, 0, 111.19);
    assert.equal(box.lngRanges.length, 1);
    assert.ok(Math.abs(box.latMax - 1) < 1e-3 && Math.abs(box.latMin + 1) < 1e-3);
    assert.ok(Math.abs(box.lngRanges[0]![1] - 1) < 1e-3);
  });

  it('wraps across the antimeridian, on both sides', () => {
    const east = nearFilter(-17, 179.95, 20).box.lngRanges;
    assert.equal(east.length, 2);
    assert.equal(east[0]![1], 180);
    assert.equal(east[1]![0], -180);
    assert.ok(east[1]![1] > -179.9 && east[1]![1] < -179.7);
    const west = nearFilter(-17, -179.95, 20).box.lngRanges;
    assert.equal(west.length, 2);
    assert.ok(west[0]![0] > 179.7 && west[0]![0] < 179.9);
  });

  it('spans every longitude when the circle holds a pole, and clamps latitudes', () => {
    for (const lat of [89.95, 90, -90, -89.99]) {
      const { box } = nearFilter(lat, 10, 15);
      assert.deepEqual(box.lngRanges, [[-180, 180]], String(lat));
      assert.ok(box.latMax <= 90 && box.latMin >= -90);
    }
    assert.deepEqual(nearFilter(0, 0, 15000).box.lngRanges, [[-180, 180]]);
  });

  it('the distance cut decides inside the box: corners are out, the rim is in', () => {
    const near = nearFilter(0, 0, 100);
    assert.ok(0.8 <= near.box.latMax && 0.8 <= near.box.lngRanges[0]![1]); // (0.8, 0.8) is in the box…
    assert.equal(withinRadius(near, 0.8, 0.8), false); // …but 125.8 km away
    assert.equal(withinRadius(near, 0.6, 0.6), true); // 94.4 km
    const rim = (100 / EARTH_RADIUS_KM) * (180 / Math.PI);
    assert.equal(withinRadius(near, rim * 0.999999, 0), true);
    assert.equal(withinRadius(near, 0, rim * 0.999999), true);
    assert.equal(withinRadius(near, rim * 1.000001, 0), false);
    // Points on the widest meridians of the circle (away from the equator) stay inside the box.
    const north = nearFilter(60, 30, 200);
    for (let bearing = 0; bearing < 360; bearing += 5) {
      const d = 199.999 / EARTH_RADIUS_KM;
      const b = (bearing * Math.PI) / 180;
      const la1 = (60 * Math.PI) / 180;
      const la2 = Math.asin(Math.sin(la1) * Math.cos(d) + Math.cos(la1) * Math.sin(d) * Math.cos(b));
      const lo2 = (30 * Math.PI) / 180 + Math.atan2(Math.sin(b) * Math.sin(d) * Math.cos(la1), Math.cos(d) - Math.sin(la1) * Math.sin(la2));
      assert.equal(withinRadius(north, (la2 * 180) / Math.PI, (lo2 * 180) / Math.PI), true, `bearing ${bearing}`);
    }
  });
});

describe('geoFilterOf: units and defaults', () => {
  it('uses the configured radius and unit, converting between miles and km', () => {
    assert.ok(Math.abs(geoFilterOf({ geoloc_lat: 1, geoloc_lng: 2 }, DEFAULT_GEOLOC)!.near!.radiusKm - 40.2336) < 1e-9);
    assert.equal(geoFilterOf({ geoloc_lat: 1, geoloc_lng: 2, geoloc_radius: 10, geoloc_unit: 'km' }, DEFAULT_GEOLOC)!.near!.radiusKm, 10);
    assert.ok(Math.abs(geoFilterOf({ geoloc_lat: 1, geoloc_lng: 2, geoloc_radius: 10 }, DEFAULT_GEOLOC)!.near!.radiusKm - 16.09344) < 1e-9);
    assert.equal(geoFilterOf({ geoloc_lat: 1, geoloc_lng: 2, geoloc_unit: 'km' }, { radius: 40, unit: 'km' })!.near!.radiusKm, 40);
    assert.ok(Math.abs(geoFilterOf({ geoloc_lat: 1, geoloc_lng: 2, geoloc_unit: 'km' }, DEFAULT_GEOLOC)!.near!.radiusKm - 40.2336) < 1e-9);
    assert.deepEqual(geoFilterOf({ geoloc: true }, DEFAULT_GEOLOC), {});
    assert.equal(geoFilterOf({ geoloc: false }, DEFAULT_GEOLOC), undefined);
    assert.equal(geoFilterOf({}, DEFAULT_GEOLOC), undefined);
  });
});
