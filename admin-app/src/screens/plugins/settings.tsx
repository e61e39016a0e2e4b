/**
 * The settings (read for every setting, changed here for the calendar's own), from `calendar/admin/v1/settings`: a
 * form of the calendar's own settings (site name, time zone, submission options) grouped by topic,
 * each with the control its type asks for, saved with PATCH (errors next to their field and in a
 * summary); every other setting read-only, saying where it is set (the environment variable, or
 * its default). Administrators only.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../../lib/i18n';
import type { ScreenDef } from '../../lib/screens';
import { api, fieldErrors, ApiProblem } from '../../lib/api';
import { useApi } from '../../components/useApi';
import { PageHeader } from '../../components/PageHeader';
import { Checkbox, SelectField, TextField } from '../../components/Fields';
import { ErrorState, Loading } from '../../components/States';
import { toast } from '../../components/Toast';

interface Setting {
  name: string;
  flag: string;
  value: unknown;
  source: 'default' | 'environment' | 'flag' | 'database';
  default: string;
  description: string;
  secret: boolean;
  scope: 'environment' | 'calendar';
  editable: boolean;
  type: string;
  unit: string | null;
  choices: string[] | null;
  min: number | null;
  max: number | null;
  group: string;
}

const GROUPS = ['site', 'submissions', 'server', 'security', 'limits', 'sync', 'federation', 'mail'];

function shown(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (Array.isArray(value)) return value.length ? value.join(', ') : '—';
  return String(value);
}

/** Time zones for the datalist (every IANA name the browser knows). */
function zones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
  return intl.supportedValuesOf ? intl.supportedValuesOf('timeZone') : [];
}

/** A unit in the reader's language (`days` → `jours`). */
const unitOf = (unit: string) => t(`settings.unit.${unit}`);

/** A choice in the reader's language where the catalogue names it (`monday` → `lundi`), else as the server spells it. */
function choiceOf(name: string, choice: string): string {
  const key = `settings.choice.${name}.${choice}`;
  const text = t(key);
  return text === key ? choice : text;
}

function Control({ s, value, error, onChange }: { s: Setting; value: string; error?: string; onChange: (v: string) => void }) {
  const label = s.unit ? `${t(`settings.label.${s.name}`)} (${unitOf(s.unit)})` : t(`settings.label.${s.name}`);
  const help = `${s.description}. ${t('settings.defaultIs', { value: s.default })}`;
  const common = { label, name: s.name, id: `setting-${s.name}`, help, ...(error ? { error } : {}) };
  if (s.type === 'boolean') return <Checkbox {...common} checked={['true', '1', 'on', 'yes'].includes(value)} onChange={(v) => onChange(String(v))} />;
  if (s.type === 'enum' && s.choices) return <SelectField {...common} value={value} onChange={onChange} options={s.choices.map((c) => ({ value: c, label: choiceOf(s.name, c) }))} />;
  if (s.type === 'integer' || s.type === 'number') return <TextField {...common} type="number" inputMode="decimal" step={s.type === 'integer' ? '1' : 'any'} value={value} onInput={onChange} />;
  if (s.type === 'timezone') return <TextField {...common} value={value} onInput={onChange} list="settings-zones" autoComplete="off" />;
  return <TextField {...common} value={value} onInput={onChange} />;
}

function ReadOnly({ s }: { s: Setting }) {
  const where =
    s.source === 'environment'
      ? t('settings.setIn.environment', { name: s.name })
      : s.source === 'flag'
        ? t('settings.setIn.flag', { flag: s.flag })
        : s.source === 'database'
          ? t('settings.setIn.database')
          : t('settings.setIn.default', { name: s.name });
  return (
    <div class="setting-readonly">
      <dt>
        <code>{s.name}</code>
      </dt>
      <dd>
        <code class={s.secret ? 'masked' : ''}>{shown(s.value)}</code>
        {s.unit ? ` ${unitOf(s.unit)}` : ''} <small>— {where}</small>
        <br />
        <small>{s.description}</small>
      </dd>
    </div>
  );
}

function Settings() {
  const list = useApi<Setting[]>('calendar/admin/v1/settings');
  // The list a save answered replaces the first one read, without a reload (the form stays as it is).
  const [saved, setSaved] = useState<Setting[] | null>(null);
  // What the user typed, by setting; the others show their value in force.
  const [edits, setEdits] = useState<Record<string, string>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [saving, setSaving] = useState(false);
  const summary = useRef<HTMLDivElement>(null);
  const rows = saved ?? list.data ?? [];
  const inForce = (s: Setting) => (s.value === null ? '' : String(s.value));
  const valueOf = (s: Setting) => edits[s.name] ?? inForce(s);
  useEffect(() => {
    if (Object.keys(errors).length) summary.current?.focus();
  }, [errors]);

  async function save(e: Event) {
    e.preventDefault();
    const changed: Record<string, string> = {};
    for (const s of rows) if (s.editable && valueOf(s) !== inForce(s)) changed[s.name] = valueOf(s);
    setSaving(true);
    try {
      const answer = await api<Setting[]>('calendar/admin/v1/settings', { method: 'PATCH', body: changed });
      setSaved(answer.data);
      setEdits({});
      setErrors({});
      toast(t('settings.saved'));
    } catch (err) {
      const found = fieldErrors(err);
      setErrors(Object.keys(found).length ? found : { '': err instanceof ApiProblem ? err.message : String(err) });
    } finally {
      setSaving(false);
    }
  }

  if (list.error) return <ErrorState error={list.error} onRetry={list.reload} />;
  if (!list.data && !saved) return <Loading />;
  const editable = rows.filter((s) => s.editable);
  const errorList = Object.entries(errors);
  return (
    <>
      <PageHeader title={t('settings.title')} />
      <p class="help">{t('settings.help')}</p>
      <form class="settings-form" onSubmit={save} noValidate>
        {errorList.length > 0 && (
          <div class="error-summary" role="alert" tabIndex={-1} ref={summary} aria-labelledby="settings-error-title">
            <h2 id="settings-error-title">{t('settings.errors')}</h2>
            <ul>
              {errorList.map(([name, message]) => (
                <li key={name}>{name ? <a href={`#setting-${name}`}>{`${t(`settings.label.${name}`)}: ${message}`}</a> : message}</li>
              ))}
            </ul>
          </div>
        )}
        <datalist id="settings-zones">
          {zones().map((z) => (
            <option key={z} value={z} />
          ))}
        </datalist>
        {GROUPS.map((g) => {
          const inGroup = editable.filter((s) => s.group === g);
          return inGroup.length === 0 ? null : (
            <fieldset key={g}>
              <legend>{t(`settings.group.${g}`)}</legend>
              {inGroup.map((s) => (
                <Control key={s.name} s={s} value={valueOf(s)} error={errors[s.name]} onChange={(v) => setEdits((e) => ({ ...e, [s.name]: v }))} />
              ))}
            </fieldset>
          );
        })}
        <p>
          <button type="submit" class="primary" disabled={saving}>
            {saving ? t('settings.saving') : t('settings.save')}
          </button>
        </p>
      </form>
      <h2>{t('settings.environment')}</h2>
      <p class="help">{t('settings.environmentHelp')}</p>
      {GROUPS.map((g) => {
        const inGroup = rows.filter((s) => !s.editable && s.group === g);
        return inGroup.length === 0 ? null : (
          <section key={g} aria-labelledby={`settings-env-${g}`}>
            <h3 id={`settings-env-${g}`}>{t(`settings.group.${g}`)}</h3>
            <dl class="settings-list">
              {inGroup.map((s) => (
                <ReadOnly key={s.name} s={s} />
              ))}
            </dl>
          </section>
        );
      })}
    </>
  );
}

export const screens: ScreenDef[] = [{ path: '/settings', nav: { labelKey: 'settings.nav', group: 'system', order: 40 }, roles: ['administrator'], component: Settings }];
