/**
 * A table of records with sortable columns (buttons in the headers, `aria-sort`), optional row
 * selection (checkboxes with labels) and paging (previous/next, "page N of M", total). At 390 px
 * rows turn into cards (each cell labelled by its column).
 */
import type { ComponentChildren } from 'preact';
import { t, formatNumber } from '../lib/i18n';
import { Empty, Loading } from './States';

export interface Column<R> {
  key: string;
  label: string;
  /** The API's `orderby` value, when the column sorts. */
  sort?: string;
  render: (row: R) => ComponentChildren;
  /** Hidden on narrow screens. */
  optional?: boolean;
}

export interface Sort {
  by: string;
  order: 'asc' | 'desc';
}

export interface Paging {
  page: number;
  totalPages: number;
  total: number;
  onPage: (page: number) => void;
}

export function DataTable<R extends { id: number | string }>(o: {
  caption: string;
  columns: Column<R>[];
  rows: R[] | null;
  loading?: boolean;
  empty: string;
  sort?: Sort;
  onSort?: (s: Sort) => void;
  selected?: Set<R['id']>;
  onSelect?: (ids: Set<R['id']>) => void;
  rowLabel?: (row: R) => string;
  paging?: Paging;
}) {
  const { rows, selected, onSelect } = o;
  if (!rows) return <Loading />;
  const allSelected = !!selected && rows.length > 0 && rows.every((r) => selected.has(r.id));
  const toggle = (id: R['id'], on: boolean) => {
    const next = new Set(selected);
    if (on) next.add(id);
    else next.delete(id);
    onSelect?.(next);
  };
  return (
    <div class="table-wrap">
      {o.loading && <Loading />}
      {rows.length === 0 ? (
        <Empty>{o.empty}</Empty>
      ) : (
        <table class="data">
          <caption class="sr-only">{o.caption}</caption>
          <thead>
            <tr>
              {onSelect && (
                <th scope="col" class="select">
                  <input
                    type="checkbox"
                    aria-label={t('table.selectAll')}
                    checked={allSelected}
                    onChange={(e) => onSelect(new Set((e.target as HTMLInputElement).checked ? rows.map((r) => r.id) : []))}
                  />
                </th>
              )}
              {o.columns.map((c) => {
                const active = o.sort && c.sort && o.sort.by === c.sort;
                return (
                  <th key={c.key} scope="col" class={c.optional ? 'optional' : ''} aria-sort={active ? (o.sort!.order === 'asc' ? 'ascending' : 'descending') : undefined}>
                    {c.sort && o.onSort ? (
                      <button type="button" class="sort" onClick={() => o.onSort!({ by: c.sort!, order: active && o.sort!.order === 'asc' ? 'desc' : 'asc' })}>
                        {c.label}
                        <span aria-hidden="true">{active ? (o.sort!.order === 'asc' ? ' ▲' : ' ▼') : ' ↕'}</span>
                      </button>
                    ) : (
                      c.label
                    )}
                  </th>
                );
              })}
            </tr>
          </thead>
          <tbody>
            {rows.map((row) => (
              <tr key={row.id} class={selected?.has(row.id) ? 'selected' : ''}>
                {onSelect && (
                  <td class="select">
                    <input
                      type="checkbox"
                      aria-label={t('table.select', { name: o.rowLabel ? o.rowLabel(row) : String(row.id) })}
                      checked={selected?.has(row.id)}
                      onChange={(e) => toggle(row.id, (e.target as HTMLInputElement).checked)}
                    />
                  </td>
                )}
                {o.columns.map((c) => (
                  <td key={c.key} data-label={c.label} class={c.optional ? 'optional' : ''}>
                    {c.render(row)}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {o.paging && o.paging.totalPages > 0 && (
        <nav class="paging" aria-label={t('table.paging')}>
          <button type="button" class="secondary" disabled={o.paging.page <= 1} onClick={() => o.paging!.onPage(o.paging!.page - 1)}>
            {t('table.previous')}
          </button>
          <span>
            {t('table.pageOf', { page: formatNumber(o.paging.page), pages: formatNumber(o.paging.totalPages) })} · {t('table.total', { n: formatNumber(o.paging.total) })}
          </span>
          <button type="button" class="secondary" disabled={o.paging.page >= o.paging.totalPages} onClick={() => o.paging!.onPage(o.paging!.page + 1)}>
            {t('table.next')}
          </button>
        </nav>
      )}
    </div>
  );
}
