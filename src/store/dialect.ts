/** The databases a store runs on: SQLite through better-sqlite3, PostgreSQL through `pg`. */
export type DialectName = 'sqlite' | 'postgres';
