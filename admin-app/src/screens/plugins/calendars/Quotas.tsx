/**
 * A calendar's quotas on its page of the Calendars screen (docs/calendars.md, "Quotas" and "In the
 * admin app"): one field per quota, empty for the installation's default (which the API does not
 * tell, so the hint says "installation default"), `0` for no limit, images in MB. Saved with
 * `PATCH calendar/network/v1/calendars/{id} {quotas}`, which replaces them all; a refused value is
 * shown at its field (the API names the quota) and the focus moves there. Each field also says
 * what the calendar uses of its quota (`GET calendar/network/v1/calendars/{id}/usage`), read when
 * the page opens and again after a save; requests a minute have no one number to show.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiProblem } from '../../../lib/api';
import { locale, t } from '../../../lib/i18n';
import { TextField } from '../../../components/Fields';
import { toast } from '../../../components/Toast';
import { QUOTA_NAMES, quotaOfProblem, quotasBody, quotaTexts, quotaUsage, type QuotaName, type Quotas, type QuotaTexts, type QuotaUsage } from './quota-values';

const fieldId = (name: QuotaName) => `f-quota-${name}`;

export function QuotasSection({ calendarId, quotas }: { calendarId: number; quotas: Quotas }) {
  const [saved, setSaved] = useState<Quotas>(quotas);
  const [texts, setTexts] = useState<QuotaTexts>(() => quotaTexts(quotas, locale.value));
  const [errors, setErrors] = useState<Partial<Record<QuotaName, string>>>({});
  const [message, setMessage] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const inFlight = useRef(false);
  const form = useRef<HTMLFormElement>(null);
  const [usage, setUsage] = useState<QuotaUsage | undefined>();
  const [usageState, setUsageState] = useState<{ state: 'loading' } | { state: 'ready' } | { state: 'failed'; message: string }>({ state: 'loading' });

  const readUsage = async () => {
    try {
      const res = await api<QuotaUsage>(`calendar/network/v1/calendars/${calendarId}/usage`);
      setUsage(res.data);
      setUsageState({ state: 'ready' });
    } catch (err) {
      setUsageState({ state: 'failed', message: err instanceof Error ? err.message : String(err) });
    }
  };
  useEffect(() => {
    void readUsage();
  }, [calendarId]);

  const submit = async (e: Event) => {
    e.preventDefault();
    // The button stays focusable while busy (aria-disabled): a second press waits for the first.
    if (inFlight.current) return;
    inFlight.current = true;
    setBusy(true);
    setErrors({});
    setMessage(undefined);
    try {
      const res = await api<{ quotas: Quotas }>(`calendar/network/v1/calendars/${calendarId}`, { method: 'PATCH', body: { quotas: quotasBody(texts, saved, locale.value) } });
      setSaved(res.data.quotas);
      setTexts(quotaTexts(res.data.quotas, locale.value));
      toast(t('calendars.quotas.saved'));
      void readUsage();
    } catch (err) {
      const quota = err instanceof ApiProblem && err.code === 'rest_invalid_param' ? quotaOfProblem(err.data) : undefined;
      if (quota) {
        setErrors({ [quota]: t(quota === 'media_bytes' ? 'calendars.quotas.invalidMb' : 'calendars.quotas.invalid') });
        // After the error is drawn: the field, with its error as its description.
        setTimeout(() => form.current?.querySelector<HTMLInputElement>(`#${fieldId(quota)}`)?.focus(), 0);
      } else setMessage(err instanceof Error ? err.message : String(err));
    } finally {
      inFlight.current = false;
      setBusy(false);
    }
  };

  return (
    <section class="card" aria-labelledby="quotas">
      <h2 id="quotas">{t('calendars.quotas.title')}</h2>
      <p>{t('calendars.quotas.help')}</p>
      <p role="status" class={usageState.state === 'failed' ? 'notice error' : undefined}>
        {usageState.state === 'loading' ? t('calendars.quotas.usageLoading') : usageState.state === 'failed' ? t('calendars.quotas.usageFailed', { message: usageState.message }) : ''}
      </p>
      <form ref={form} onSubmit={(e) => void submit(e)} noValidate>
        {message && (
          <div class="notice error" role="alert">
            <p>{message}</p>
          </div>
        )}
        <div class="grid">
          {QUOTA_NAMES.map((name) => {
            const used = quotaUsage(name, usage, locale.value);
            return (
              <TextField
                key={name}
                id={fieldId(name)}
                name={`quota-${name}`}
                label={t(`calendars.quotas.${name}`)}
                help={`${t(`calendars.quotas.${name}.help`)} ${t('calendars.quotas.emptyIsDefault')}${used ? ` ${t(used.key, used.vars)}` : ''}`}
                value={texts[name]}
                onInput={(v) => setTexts((old) => ({ ...old, [name]: v }))}
                error={errors[name]}
                inputMode={name === 'media_bytes' ? 'decimal' : 'numeric'}
                autoComplete="off"
              />
            );
          })}
        </div>
        <button type="submit" aria-disabled={busy ? 'true' : undefined}>
          {busy ? t('calendars.quotas.saving') : t('calendars.quotas.save')}
        </button>
      </form>
    </section>
  );
}
