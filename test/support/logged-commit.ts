/**
 * A commit of another process on a SQLite file, logged as the store logs its writes: the change
 * counter moves and one log row (a venue updated) names it. For the feed's tests, which watch a
 * connection other than the store's write.
 *
 * @example logVenueUpdate(other) // another connection on the file
 */
import type BetterSqlite3 from 'better-sqlite3';

export function logVenueUpdate(connection: BetterSqlite3.Database): void {
  connection.transaction(() => {
    connection.prepare('update "change_counter" set "value" = "value" + 1 where "id" = 1').run();
    const seq = Number(connection.prepare('select "value" from "change_counter" where "id" = 1').pluck().get());
    connection
      .prepare(`insert into "changes" ("seq", "idx", "record_type", "record_id", "action", "detail", "created_gmt", "calendar_id") values (?, 0, 'venue', 1, 'update', null, '2031-01-01 00:00:00', 1)`)
      .run(seq);
  })();
}
