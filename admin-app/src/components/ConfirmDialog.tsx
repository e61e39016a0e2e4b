/**
 * A modal question (`<dialog>`, so focus stays inside and Escape cancels). `confirmDialog(...)`
 * resolves to true when the user confirms; `<ConfirmHost />` is in the layout once.
 *
 * @example
 *   if (await confirmDialog({ title: t('events.delete'), message: t('events.deleteQ'), confirm: t('common.delete'), danger: true })) …
 */
import { signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../lib/i18n';

interface Ask {
  title: string;
  message: string;
  confirm?: string;
  cancel?: string;
  danger?: boolean;
  /** Extra choices (e.g. recurrence scopes): the value of the one chosen is the answer. */
  choices?: Array<{ value: string; label: string }>;
  resolve: (answer: string | false) => void;
}

const asking = signal<Ask | null>(null);

export function confirmDialog(o: Omit<Ask, 'resolve' | 'choices'>): Promise<boolean> {
  return new Promise((resolve) => (asking.value = { ...o, resolve: (a) => resolve(a !== false) }));
}

/** Ask to choose one of several answers; false when cancelled. */
export function chooseDialog(o: Omit<Ask, 'resolve'> & { choices: Array<{ value: string; label: string }> }): Promise<string | false> {
  return new Promise((resolve) => (asking.value = { ...o, resolve }));
}

export function ConfirmHost() {
  const ref = useRef<HTMLDialogElement>(null);
  const ask = asking.value;
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (ask && !d.open) d.showModal();
    if (!ask && d.open) d.close();
  }, [ask]);
  const answer = (a: string | false) => {
    const current = asking.value;
    asking.value = null;
    current?.resolve(a);
  };
  return (
    <dialog ref={ref} class="dialog" aria-labelledby="dialog-title" aria-describedby="dialog-message" onCancel={(e) => (e.preventDefault(), answer(false))}>
      {ask && (
        <form method="dialog" onSubmit={(e) => e.preventDefault()}>
          <h2 id="dialog-title">{ask.title}</h2>
          <p id="dialog-message">{ask.message}</p>
          <div class="actions">
            {ask.choices ? (
              ask.choices.map((c) => (
                <button key={c.value} type="button" onClick={() => answer(c.value)}>
                  {c.label}
                </button>
              ))
            ) : (
              <button type="button" class={ask.danger ? 'danger' : ''} onClick={() => answer('yes')}>
                {ask.confirm ?? t('common.ok')}
              </button>
            )}
            <button type="button" class="secondary" onClick={() => answer(false)}>
              {ask.cancel ?? t('common.cancel')}
            </button>
          </div>
        </form>
      )}
    </dialog>
  );
}
