/**
 * A new-password field with a strength meter: the server's own estimate
 * (`calendar/admin/v1/password-strength`, the check that decides), asked a moment after typing
 * stops, shown as a `<meter>` and in words with the reason a password would be refused. The
 * dictionaries stay on the server (the app's JavaScript budget could not hold them).
 *
 * @example
 *   <NewPassword id="new-password" label={t('people.newPassword')} value={pw} onInput={setPw} words={[name, email]} />
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../lib/api';
import { t } from '../lib/i18n';

const NS = 'calendar/admin/v1';

interface Strength {
  score: number;
  ok: boolean;
  message?: string;
}

/** A new-password field with the server's strength estimate as a meter and in words. */
export function NewPassword(o: { id: string; label: string; value: string; onInput: (v: string) => void; error?: string; words?: string[]; help?: string }) {
  const [strength, setStrength] = useState<Strength | null>(null);
  const asked = useRef(0);
  useEffect(() => {
    if (o.value === '') {
      setStrength(null);
      return;
    }
    const n = ++asked.current;
    const timer = setTimeout(() => {
      void api<Strength>(`${NS}/password-strength`, { method: 'POST', body: { password: o.value, user_inputs: (o.words ?? []).filter(Boolean) } }).then(
        (r) => n === asked.current && setStrength(r.data),
        () => undefined,
      );
    }, 250);
    return () => clearTimeout(timer);
  }, [o.value]);
  const describedBy = [`${o.id}-help`, `${o.id}-strength`, o.error ? `${o.id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={`field${o.error ? ' has-error' : ''}`}>
      <label for={o.id}>{o.label}</label>
      <input
        id={o.id}
        type="password"
        autoComplete="new-password"
        value={o.value}
        onInput={(e) => o.onInput((e.target as HTMLInputElement).value)}
        aria-describedby={describedBy}
        aria-invalid={o.error ? 'true' : undefined}
      />
      <p class="help" id={`${o.id}-help`}>
        {o.help ? `${o.help} ${t('people.passwordRules')}` : t('people.passwordRules')}
      </p>
      <div aria-live="polite">
        <meter id={`${o.id}-meter`} min={0} max={4} low={2} high={3} optimum={4} value={strength?.score ?? 0} aria-labelledby={`${o.id}-strength`} />
        <p class="help" id={`${o.id}-strength`}>
          {strength ? `${t(`people.strength.${strength.score}`)}${strength.ok ? '' : ` — ${strength.message ?? ''}`}` : t('people.strength.empty')}
        </p>
      </div>
      {o.error && (
        <p class="field-error" id={`${o.id}-error`} role="alert">
          {o.error}
        </p>
      )}
    </div>
  );
}
