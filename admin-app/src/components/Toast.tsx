/**
 * Toasts: short notices after an action ("Saved"), shown in a live region so screen readers announce
 * them. `toast(text)` from anywhere; `<Toasts />` is in the layout once.
 */
import { signal } from '@preact/signals';
import { t } from '../lib/i18n';

interface Item {
  id: number;
  text: string;
  kind: 'success' | 'error' | 'info';
}

export const toasts = signal<Item[]>([]);
let next = 1;

export function toast(text: string, kind: Item['kind'] = 'success', ms = 6000): void {
  const id = next++;
  toasts.value = [...toasts.value, { id, text, kind }];
  setTimeout(() => dismiss(id), ms);
}

function dismiss(id: number) {
  toasts.value = toasts.value.filter((x) => x.id !== id);
}

export function Toasts() {
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.value.map((item) => (
        <div key={item.id} class={`toast ${item.kind}`}>
          <span>{item.text}</span>
          <button type="button" class="link" aria-label={t('common.dismiss')} onClick={() => dismiss(item.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
