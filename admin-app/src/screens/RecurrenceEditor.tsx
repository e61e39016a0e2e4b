/**
 * The recurrence section of the event editor: the rule, its end, exceptions, raw lines and a
 * preview of the next occurrences. The preview is the server's (`POST calendar/admin/v1/recurrence/preview`:
 * the same parsing and expansion as the event write, raw lines included, in the event's zone), asked
 * again 400 ms after each change; its 400 (a bad line) shows as the field's message. Until it answers,
 * or when it cannot be reached, the browser's own reading of the rule editor's cases is shown.
 * Raw RFC 5545 text (the free lines and what is sent) is for developers: it stays folded in an
 * "Advanced" disclosure, open by itself only when the event has such lines or one is refused.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiProblem } from '../lib/api';
import { formatDate, t } from '../lib/i18n';
import { WEEKDAYS, nthWeekdayOf, preview, toLines, type Freq, type Rule } from '../lib/recurrence';
import { Fieldset, SelectField, TextArea, TextField } from '../components/Fields';

function DateList({ label, name, dates, onChange }: { label: string; name: string; dates: string[]; onChange: (d: string[]) => void }) {
  const [value, setValue] = useState('');
  return (
    <div class="field">
      <TextField label={label} name={name} type="date" value={value} onInput={setValue} />
      <button
        type="button"
        class="secondary"
        disabled={!value}
        onClick={() => {
          if (value && !dates.includes(value)) onChange([...dates, value].sort());
          setValue('');
        }}
      >
        {t('common.add')}
      </button>
      <ul class="chips" aria-label={label}>
        {dates.map((d) => (
          <li key={d}>
            {formatDate(d, { dateStyle: 'medium' })}
            <button type="button" class="link" aria-label={t('recurrence.removeDate', { date: formatDate(d, { dateStyle: 'medium' }) })} onClick={() => onChange(dates.filter((x) => x !== d))}>
              ×
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The schedule the preview is asked for (as the event write takes it). */
export interface PreviewSchedule {
  start_date: string;
  end_date: string;
  timezone: string;
  all_day: boolean;
}

interface ServerPreview {
  occurrences: Array<{ start_date: string; end_date: string }>;
}

/**
 * The server's preview of `lines` for `schedule`: occurrences, or the API's message for a bad line.
 * An answer counts only for the rule and schedule it was asked for: after a change, until the new
 * answer comes, the caller shows its own reading, never the answer for the rule as it was before.
 */
function useServerPreview(schedule: PreviewSchedule, lines: string[]): { dates?: string[]; problem?: string } {
  const [state, setState] = useState<{ key?: string; dates?: string[]; problem?: string }>({});
  const key = JSON.stringify([schedule, lines]);
  useEffect(() => {
    if (lines.length === 0) return;
    let live = true;
    const timer = setTimeout(() => {
      api<ServerPreview>('calendar/admin/v1/recurrence/preview', { method: 'POST', body: { ...schedule, recurrence: lines, count: 10 } }).then(
        (r) => live && setState({ key, dates: r.data.occurrences.map((o) => o.start_date) }),
        (e: unknown) => live && setState(e instanceof ApiProblem && e.status === 400 ? { key, problem: (e.data.params as Record<string, string> | undefined)?.recurrence ?? e.message } : {}),
      );
    }, 400);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [key]);
  return state.key === key ? state : {};
}

export function RecurrenceEditor({
  rule,
  onChange,
  startDate,
  startTime,
  schedule,
  error,
}: {
  rule: Rule;
  onChange: (r: Rule) => void;
  startDate: string;
  startTime: string;
  schedule: PreviewSchedule;
  error?: string;
}) {
  const set = (patch: Partial<Rule>) => onChange({ ...rule, ...patch });
  const server = useServerPreview(schedule, toLines(rule, startDate));
  const [advanced, setAdvanced] = useState(rule.raw.length > 0);
  const problem = error ?? server.problem;
  // The server's occurrences (local start in the event's zone), else the browser's reading.
  const next = server.dates ?? preview(rule, startDate, 10).map((d) => `${d} ${startTime}`.trim());
  const dayNames = (d: string) => formatDate(new Date(Date.UTC(2024, 0, 1 + WEEKDAYS.indexOf(d as (typeof WEEKDAYS)[number]))), { weekday: 'long', timeZone: 'UTC' });
  return (
    <Fieldset legend={t('recurrence.title')}>
      <SelectField
        label={t('recurrence.repeat')}
        name="freq"
        value={rule.freq}
        onChange={(v) => set({ freq: v as Freq, byDay: v === 'WEEKLY' ? rule.byDay.filter((d) => WEEKDAYS.includes(d as (typeof WEEKDAYS)[number])) : [] })}
        options={(['NONE', 'DAILY', 'WEEKLY', 'MONTHLY', 'YEARLY'] as const).map((f) => ({ value: f, label: t(`recurrence.freq.${f}`) }))}
      />
      {rule.freq !== 'NONE' && (
        <>
          <TextField
            label={t('recurrence.interval')}
            name="interval"
            type="number"
            inputMode="numeric"
            value={String(rule.interval)}
            onInput={(v) => set({ interval: Math.max(1, Number(v) || 1) })}
            help={t(`recurrence.every.${rule.freq}`)}
          />
          {rule.freq === 'WEEKLY' && (
            <fieldset class="days">
              <legend>{t('recurrence.days')}</legend>
              {WEEKDAYS.map((d) => (
                <label key={d}>
                  <input
                    type="checkbox"
                    checked={rule.byDay.includes(d)}
                    onChange={(e) => set({ byDay: (e.target as HTMLInputElement).checked ? [...rule.byDay, d] : rule.byDay.filter((x) => x !== d) })}
                  />
                  {dayNames(d)}
                </label>
              ))}
            </fieldset>
          )}
          {rule.freq === 'MONTHLY' && (
            <SelectField
              label={t('recurrence.monthlyBy')}
              name="monthly"
              value={rule.monthly}
              onChange={(v) => set({ monthly: v as Rule['monthly'], byDay: [] })}
              options={[
                { value: 'date', label: t('recurrence.monthly.date', { day: Number(startDate.slice(8, 10)) }) },
                {
                  value: 'nth',
                  label: t('recurrence.monthly.nth', { nth: t(`recurrence.nth.${nthWeekdayOf(startDate).replace(/[A-Z]+$/, '')}`), day: dayNames(nthWeekdayOf(startDate).replace(/^-?\d/, '')) }),
                },
              ]}
            />
          )}
          <SelectField
            label={t('recurrence.ends')}
            name="ends"
            value={rule.end}
            onChange={(v) => set({ end: v as Rule['end'] })}
            options={[
              { value: 'never', label: t('recurrence.end.never') },
              { value: 'until', label: t('recurrence.end.until') },
              { value: 'count', label: t('recurrence.end.count') },
            ]}
          />
          {rule.end === 'until' && <TextField label={t('recurrence.untilDate')} name="until" type="date" value={rule.until} onInput={(v) => set({ until: v })} />}
          {rule.end === 'count' && (
            <TextField label={t('recurrence.count')} name="count" type="number" inputMode="numeric" value={String(rule.count)} onInput={(v) => set({ count: Math.max(1, Number(v) || 1) })} />
          )}
        </>
      )}
      <DateList label={t('recurrence.exdates')} name="exdate" dates={rule.exdates} onChange={(d) => set({ exdates: d })} />
      <DateList label={t('recurrence.rdates')} name="rdate" dates={rule.rdates} onChange={(d) => set({ rdates: d })} />
      <details class="advanced" open={advanced || !!problem} onToggle={(e) => setAdvanced((e.currentTarget as HTMLDetailsElement).open)}>
        <summary>{t('recurrence.advanced')}</summary>
        <TextArea
          label={t('recurrence.raw')}
          name="recurrence"
          rows={3}
          value={rule.raw.join('\n')}
          onInput={(v) => set({ raw: v.split('\n').filter((l) => l.trim() !== '') })}
          help={t('recurrence.rawHelp')}
          error={problem}
        />
        <p class="help">
          {t('recurrence.lines')} <code>{toLines(rule, startDate).join(' · ') || '—'}</code>
        </p>
      </details>
      {next.length > 0 && (
        <section aria-labelledby="rec-preview">
          <h3 id="rec-preview">{t('recurrence.preview')}</h3>
          <ol class="occurrences">
            {next.map((d) => (
              <li key={d}>
                {formatDate(d.slice(0, 10), { dateStyle: 'full' })} {d.length > 10 ? d.slice(11, 16) : ''}
              </li>
            ))}
          </ol>
        </section>
      )}
    </Fieldset>
  );
}
