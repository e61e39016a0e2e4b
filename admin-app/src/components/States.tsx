/** Loading, empty and error states, announced to screen readers. */
import type { ComponentChildren } from 'preact';
import { t } from '../lib/i18n';

export function Loading({ label }: { label?: string }) {
  return (
    <p class="state loading" role="status" aria-live="polite">
      <span class="spinner" aria-hidden="true" />
      {label ?? t('common.loading')}
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="state empty">{children}</p>;
}

export function ErrorState({ error, onRetry }: { error: unknown; onRetry?: () => void }) {
  const message = error instanceof Error ? error.message : String(error);
  return (
    <div class="notice error" role="alert">
      <p>{t('common.error', { message })}</p>
      {onRetry && (
        <button type="button" class="secondary" onClick={onRetry}>
          {t('common.retry')}
        </button>
      )}
    </div>
  );
}
