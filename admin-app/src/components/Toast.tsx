/**
 * Toasts: short notices after an action ("Saved"), shown in a live region so screen readers announce
 * them. `toast(text)` from anywhere; `<Toasts />` is in the layout once, at the top of the main
 * region and in the flow of the page: a toast pushes the content down instead of floating over it,
 * so it never covers a control (a fixed corner toast hid the editor's buttons at 390 px).
 *
 * A toast may carry one action (`toast(text, 'success', { action: { label: 'Undo', run } })`): its
 * button takes the focus (so a keyboard user reaches it at once), the toast stays while the focus or
 * the pointer is in it, and when it goes the focus returns to the main region instead of being lost.
 */
import { signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { t } from '../lib/i18n';

interface Action {
  label: string;
  run: () => void | Promise<void>;
}

interface Item {
  id: number;
  text: string;
  kind: 'success' | 'error' | 'info';
  action?: Action;
}

export const toasts = signal<Item[]>([]);
let next = 1;
/** Toasts whose time is up but which hold the focus or the pointer: they go when left. */
const held = new Set<number>();
const expired = new Set<number>();

/** Show a toast for `ms` (or `options.ms`), with an optional action button. Returns its id. */
export function toast(text: string, kind: Item['kind'] = 'success', options: number | { ms?: number; action?: Action } = 6000): number {
  const { ms = 6000, action } = typeof options === 'number' ? { ms: options, action: undefined } : options;
  const id = next++;
  toasts.value = [...toasts.value, { id, text, kind, ...(action ? { action } : {}) }];
  setTimeout(() => {
    if (held.has(id)) expired.add(id);
    else dismiss(id);
  }, ms);
  return id;
}

export function dismiss(id: number) {
  held.delete(id);
  expired.delete(id);
  const wasFocused = document.activeElement instanceof HTMLElement && document.activeElement.closest(`[data-toast="${id}"]`) !== null;
  toasts.value = toasts.value.filter((x) => x.id !== id);
  // The focus was in the toast: back to the main region rather than to the page's body.
  if (wasFocused) document.getElementById('main')?.focus();
}

function ToastItem({ item }: { item: Item }) {
  const actionRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (item.action) actionRef.current?.focus();
  }, []);
  const hold = () => held.add(item.id);
  const release = (e: FocusEvent | MouseEvent) => {
    const to = (e as FocusEvent).relatedTarget as Node | null;
    if (to && (e.currentTarget as HTMLElement).contains(to)) return;
    held.delete(item.id);
    if (expired.has(item.id)) dismiss(item.id);
  };
  return (
    <div class={`toast ${item.kind}`} data-toast={item.id} onFocusIn={hold} onFocusOut={release} onMouseEnter={hold} onMouseLeave={release}>
      <span>{item.text}</span>
      {item.action && (
        <button
          type="button"
          ref={actionRef}
          class="toast-action"
          onClick={() => {
            const run = item.action!.run;
            dismiss(item.id);
            void run();
          }}
        >
          {item.action.label}
        </button>
      )}
      <button type="button" class="link" aria-label={t('common.dismiss')} onClick={() => dismiss(item.id)}>
        ×
      </button>
    </div>
  );
}

export function Toasts() {
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.value.map((item) => (
        <ToastItem key={item.id} item={item} />
      ))}
    </div>
  );
}
