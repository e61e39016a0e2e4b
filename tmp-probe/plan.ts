import { openStore } from '../src/store/db.js';
import { partsOf } from '../src/store/handle.js';
const store = await openStore('sqlite::memory:');
const db = partsOf(store.db)!.connection!;
db.exec('analyze');
db.exec(`delete from sqlite_stat1 where tbl = 'changes'`);
db.exec(`insert into sqlite_stat1 (tbl, idx, stat) values ('changes', 'changes_calendar', '434 434 1 1'), ('changes', 'changes_record', '434 217 1 1'), ('changes', 'sqlite_autoindex_changes_1', '434 1 1')`);
db.exec('analyze sqlite_schema');
for (const plus of ['', '+']) {
  const sql = `select (select max("seq") from "changes" where "calendar_id" = ? and "seq" <= ? and "record_type" <> 'credentials') as "own", (select max("seq") from "changes" where "record_type" = 'user' and ${plus}"seq" <= ?) as "people"`;
  console.log(plus || 'none', (db.prepare('explain query plan ' + sql).all(1, 1, 1) as Array<{ detail: string }>).map((r) => r.detail).join(' | '));
}
await store.close();
