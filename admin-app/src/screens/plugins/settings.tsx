/**
 * The settings in force (issue 28), read-only, from `calendar/admin/v1/settings`: each setting's
 * environment variable and flag, value (secrets masked by the server), where it came from, its
 * default and what it does. Administrators only.
 */
import { t } from '../../lib/i18n';
import type { ScreenDef } from '../../lib/screens';
import { useApi } from '../../components/useApi';
import { PageHeader } from '../../components/PageHeader';
import { DataTable, type Column } from '../../components/DataTable';
import { ErrorState } from '../../components/States';

interface Setting {
  name: string;
  flag: string;
  value: unknown;
  source: 'default' | 'environment' | 'flag' | 'database';
  default: string;
  description: string;
  secret: boolean;
}

function shown(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.length ? value.join(', ') : '—';
  return String(value);
}

function Settings() {
  const list = useApi<Setting[]>('calendar/admin/v1/settings');
  const columns: Column<Setting & { id: string }>[] = [
    {
      key: 'name',
      label: t('settings.name'),
      render: (s) => (
        <>
          <code>{s.name}</code>
          <br />
          <small>
            <code>{s.flag}</code>
          </small>
        </>
      ),
    },
    { key: 'value', label: t('settings.value'), render: (s) => <code class={s.secret ? 'masked' : ''}>{shown(s.value)}</code> },
    { key: 'source', label: t('settings.source'), render: (s) => t(`settings.from.${s.source}`) },
    { key: 'default', label: t('settings.default'), render: (s) => <code>{s.default}</code>, optional: true },
    { key: 'description', label: t('settings.description'), render: (s) => s.description, optional: true },
  ];
  return (
    <>
      <PageHeader title={t('settings.title')} />
      <p class="help">{t('settings.help')}</p>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : (
        <DataTable caption={t('settings.title')} columns={columns} rows={list.data?.map((s) => ({ ...s, id: s.name })) ?? null} loading={list.loading} empty={t('settings.empty')} />
      )}
    </>
  );
}

export const screens: ScreenDef[] = [{ path: '/settings', nav: { labelKey: 'settings.nav', group: 'system', order: 40 }, roles: ['administrator'], component: Settings }];
