/**
 * The benchmarks' PostgreSQL administration: the URL of another database on the same server, and
 * one statement on a connection of its own (CREATE/DROP DATABASE cannot run in a pool's
 * transaction).
 *
 * @example
 *   await adminQuery(base, 'create database events_bench_1');
 *   const url = postgresUrlFor(base, 'events_bench_1');
 */
import pg from 'pg';

export function postgresUrlFor(base: string, database: string): string {
  const u = new URL(base);
  u.pathname = `/${database}`;
  return u.toString();
}

export async function adminQuery<R extends pg.QueryResultRow = pg.QueryResultRow>(base: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: base });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}
