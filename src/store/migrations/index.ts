/**
 * The store's migrations, in order (db.ts `migrate` applies the pending ones). New ones are
 * appended with a sortable name; each is a file of its own beside this one.
 */
import type { Migration } from 'kysely';
import type { DialectName } from '../dialect.js';
import { initialMigration } from './001_initial.js';
import { listingIndexMigration } from './002_listing_index_and_change_counter.js';
import { changeCounterAllTablesMigration } from './003_change_counter_all_tables.js';
import { linkedListIndexMigration } from './004_linked_list_index.js';
import { changeLogMigration } from './005_change_log.js';
import { uniqueSlugsMigration } from './006_unique_slugs.js';
import { syncAndWebhooksMigration } from './007_sync_and_webhooks.js';
import { importMapMigration } from './008_import_map.js';
import { venueGeoIndexMigration } from './009_venue_geo_index.js';
import { recurrenceMigration } from './010_recurrence.js';
import { eventSlugSpaceMigration } from './011_event_slug_space.js';
import { settingsMigration } from './012_settings.js';
import { sessionsMigration } from './013_sessions.js';
import { importsMigration } from './014_imports.js';
import { submissionsMigration } from './015_submissions.js';
import { federationMigration } from './016_federation.js';
import { signInCodesMigration } from './017_sign_in_codes.js';
import { submissionLimitsMigration } from './018_submission_limits.js';
import { searchIndexMigration } from './019_search_index.js';
import { sharedLimitsMigration } from './020_shared_limits.js';
import { longEventsIndexMigration } from './021_long_events_index.js';
import { federationObjectTimesMigration } from './022_federation_object_times.js';
import { editLocksMigration } from './024_edit_locks.js';
import { filterIndexesMigration } from './025_filter_indexes.js';
import { mediaMigration } from './026_media.js';
import { peopleMigration } from './027_people.js';
import { seriesPeopleMigration } from './028_series_people.js';
import { importReviewMigration } from './029_import_review.js';
import { postPasswordsMigration } from './030_post_passwords.js';
import { calendarsMigration } from './031_calendars.js';
import { networkMigration } from './032_network.js';
import { networkLinkedMigration } from './033_network_linked.js';
import { calendarKeysMigration } from './034_calendar_keys.js';
import { federationServiceIndexesMigration } from './035_federation_service_indexes.js';
import { calendarFormerSlugsMigration } from './036_calendar_former_slugs.js';
import { federationObjectHomeMigration } from './037_federation_object_home.js';
import { editLockHoldersMigration } from './038_edit_lock_holders.js';
import { quietWritesMigration } from './039_quiet_writes.js';
import { jobLocksMigration } from './040_job_locks.js';
import { changesPrunedMigration } from './041_changes_pruned.js';
import { imagesCalendarStorageKeyMigration } from './042_images_calendar_storage_key.js';
import { followNotCopiedMigration } from './043_follow_not_copied.js';

/** The migrations, in order. New ones are appended with a sortable name. */
export function migrations(dialect: DialectName): Record<string, Migration> {
  return {
    '001_initial': initialMigration(dialect),
    '002_listing_index_and_change_counter': listingIndexMigration(dialect),
    '003_change_counter_all_tables': changeCounterAllTablesMigration(dialect),
    '004_linked_list_index': linkedListIndexMigration(),
    '005_change_log': changeLogMigration(dialect),
    '006_unique_slugs': uniqueSlugsMigration(dialect),
    '007_sync_and_webhooks': syncAndWebhooksMigration(dialect),
    '008_import_map': importMapMigration(),
    '009_venue_geo_index': venueGeoIndexMigration(),
    '010_recurrence': recurrenceMigration(),
    '011_event_slug_space': eventSlugSpaceMigration(),
    '012_settings': settingsMigration(),
    '013_sessions': sessionsMigration(dialect),
    '014_imports': importsMigration(dialect),
    '015_submissions': submissionsMigration(dialect),
    '016_federation': federationMigration(dialect),
    '017_sign_in_codes': signInCodesMigration(),
    '018_submission_limits': submissionLimitsMigration(dialect),
    '019_search_index': searchIndexMigration(dialect),
    '020_shared_limits': sharedLimitsMigration(),
    '021_long_events_index': longEventsIndexMigration(dialect),
    '022_federation_object_times': federationObjectTimesMigration(),
    '024_edit_locks': editLocksMigration(),
    '025_filter_indexes': filterIndexesMigration(),
    '026_media': mediaMigration(),
    '027_people': peopleMigration(dialect),
    '028_series_people': seriesPeopleMigration(),
    '029_import_review': importReviewMigration(),
    '030_post_passwords': postPasswordsMigration(),
    '031_calendars': calendarsMigration(dialect),
    '032_network': networkMigration(dialect),
    '033_network_linked': networkLinkedMigration(),
    '034_calendar_keys': calendarKeysMigration(dialect),
    '035_federation_service_indexes': federationServiceIndexesMigration(),
    '036_calendar_former_slugs': calendarFormerSlugsMigration(),
    '037_federation_object_home': federationObjectHomeMigration(),
    '038_edit_lock_holders': editLockHoldersMigration(),
    '039_quiet_writes': quietWritesMigration(dialect),
    '040_job_locks': jobLocksMigration(dialect),
    '041_changes_pruned': changesPrunedMigration(),
    '042_images_calendar_storage_key': imagesCalendarStorageKeyMigration(),
    '043_follow_not_copied': followNotCopiedMigration(),
  };
}
