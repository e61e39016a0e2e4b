/**
 * `events-calendar export --format ics`: every event not in the trash (or those of a date range
 * and a category) as an iCalendar file (ical-generator) named after the site (`SITE_NAME`): UID
 * `event-ID@HOST`, or the UID an imported event came with (the import map), so calendars that
 * subscribe or re-import (here too) update instead of duplicating, times in UTC (all-day events as dates), the venue as `LOCATION`,
 * categories as `CATEGORIES`, the first organizer with a valid e-mail address as `ORGANIZER` (its `CN` written by the
 * feeds' `paramValue`: RFC 6868), the website (or permalink) as
 * `URL`, the description as plain text. Drafts and other unpublished events carry
 * `STATUS:TENTATIVE`.
 *
 * @example const text = await exportIcs(services, { start: '2031-01-01', end: '2031-12-31', categoryId: 7 });
 */
import ical from 'ical-generator';
import type { DomainServices } from '../domain/services.js';
import { stripTags } from '../domain/text/tags.js';
import { addLines, organizerLine } from '../domain/ical.js';
import * as eventsStore from '../store/events.js';
import { liveEventIds, type ExportFilter } from '../store/exports.js';
import { sourceIdsOf } from '../store/import-map.js';
import { eventLocationsOf } from '../store/event-locations.js';
import * as linkedStore from '../store/linked-posts.js';
import * as termsStore from '../store/terms.js';
import type { VenueRecord } from '../store/linked-posts.js';

const asUtc = (wall: string) => new Date(`${wall.replace(' ', 'T')}Z`);

export async function exportIcs(services: DomainServices, filter: ExportFilter = {}): Promise<string> {
  const db = services.store.db;
  const host = new URL(services.config.siteUrl).host;
  // Named after the site (X-WR-CALNAME), as the feeds are: a subscriber sees the calendar's name, not a host.
  const calendar = ical({ name: services.config.siteName || host, prodId: { company: 'events-calendar', product: 'export' } });
  const ids = await liveEventIds(db, filter);
  for (let i = 0; i < ids.length; i += 500) {
    const records = await eventsStore.findEventsByIds(db, ids.slice(i, i + 500));
    records.sort((a, b) => Number(a.id) - Number(b.id));
    const eventIds = records.map((r) => Number(r.id));
    const [sourceUids, keptLocations] = await Promise.all([sourceIdsOf(db, 'ics', 'event', eventIds), eventLocationsOf(db, eventIds)]);
    const venueIds = records
      .map((r) => r.venue_id)
      .filter((v): v is number => v !== null)
      .map(Number);
    const [organizerLinks, termLinks] = await Promise.all([eventsStore.organizerLinksOf(db, eventIds), eventsStore.termLinksOf(db, eventIds)]);
    const linked = await linkedStore.findLinkedByIds(db, 'venue', venueIds);
    const venues = new Map(linked.map((v) => [Number(v.id), v as VenueRecord]));
    const organizers = new Map(
      (
        await linkedStore.findLinkedByIds(
          db,
          'organizer',
          organizerLinks.map((l) => Number(l.organizer_id)),
        )
      ).map((o) => [Number(o.id), o]),
    );
    const terms = new Map((await termsStore.findTermsByIds(db, [...new Set(termLinks.map((l) => Number(l.term_id)))])).map((t) => [Number(t.id), t]));
    for (const e of records) {
      const id = Number(e.id);
      const venue = e.venue_id === null ? undefined : venues.get(Number(e.venue_id));
      // ORGANIZER is an address (a CN alone is not one): the first organizer with an e-mail address.
      const organizer = organizerLinks
        .filter((l) => Number(l.event_id) === id)
        .map((l) => organizers.get(Number(l.organizer_id)))
        .map((o) => (o && o.status !== 'trash' && (o as { email?: string }).email ? organizerLine(o.title, (o as { email: string }).email) : undefined))
        .find((line) => line !== undefined);
      const categories = termLinks
        .filter((l) => Number(l.event_id) === id)
        .map((l) => terms.get(Number(l.term_id)))
        .filter((t) => t?.taxonomy === 'tribe_events_cat')
        .map((t) => ({ name: t!.name }));
      // The venue; else the free-text location an import kept (it named no venue here).
      const location = venue && venue.status !== 'trash' ? [venue.title, venue.address, venue.city, venue.zip, venue.country].filter((s) => s).join(', ') : (keptLocations.get(id) ?? null);
      const event = calendar.createEvent({
        id: sourceUids.get(id) ?? `event-${id}@${host}`,
        summary: stripTags(e.title),
        description: stripTags(e.content).trim() || null,
        ...(e.all_day
          ? { allDay: true, start: new Date(`${e.start_local.slice(0, 10)}T00:00:00Z`), end: new Date(Date.parse(`${e.end_local.slice(0, 10)}T00:00:00Z`) + 86_400_000) }
          : { start: asUtc(e.start_utc), end: asUtc(e.end_utc) }),
        stamp: asUtc(e.modified_gmt),
        lastModified: asUtc(e.modified_gmt),
        location,
        categories,
        url: e.website || `${services.config.siteUrl.replace(/\/$/, '')}/event/${e.slug}/`,
        ...(e.status === 'publish' ? {} : { status: 'TENTATIVE' as never }),
      });
      if (organizer) addLines(event, [organizer]);
    }
  }
  return calendar.toString();
}
