/**
 * The editor's actions on the stored event, beside Save: "Move to trash" (for an occurrence, this
 * one or the whole series; for a series, the whole series), followed by a toast with Undo for ten
 * seconds (its button takes the focus; Undo restores what was trashed, with the status it had);
 * "Restore" for an event in the trash; and for an event not published yet, "Copy preview link": a
 * signed link to its public page (calendar/admin/v1/events/{id}/preview), copied and shown in a field.
 */
import { useState } from 'preact/hooks';
import { api } from '../lib/api';
import type { EventRecord } from '../lib/events';
import { formatDate, t } from '../lib/i18n';
import { chooseDialog } from '../components/ConfirmDialog';
import { toast } from '../components/Toast';
import './EventActions.css';

const ADMIN_NS = 'calendar/admin/v1';
/** How long the Undo stays offered. */
export const UNDO_MS = 10_000;

type Scope = 'this' | 'all';

/** Trash or restore through the admin routes (one transaction for a whole series). */
export async function seriesAction(action: 'trash' | 'restore', id: number, scope: Scope): Promise<void> {
  await api(`${ADMIN_NS}/events/${id}/${action}`, { method: 'POST', body: { scope } });
}

/** Ask which part of a recurring event an action takes; false when cancelled. */
async function chooseScope(record: EventRecord, action: 'trash' | 'restore'): Promise<Scope | false> {
  if ((record.recurrence?.length ?? 0) > 0 && !record.recurring_event_id) return 'all';
  if (!record.recurring_event_id) return 'this';
  const chosen = await chooseDialog({
    title: t(action === 'trash' ? 'series.trashTitle' : 'series.restoreTitle'),
    message: t(action === 'trash' ? 'series.trashQ' : 'series.restoreQ'),
    choices: [
      { value: 'this', label: t('series.scope.this') },
      { value: 'all', label: t('series.scope.all') },
    ],
  });
  return chosen === false ? false : (chosen as Scope);
}

/**
 * `onChanged(status)`: the event is now in that status (a trashed event cannot be read again through
 * the API: the editor marks it so); without a status, load it again.
 */
export function EventActions({ record, onChanged }: { record: EventRecord; onChanged: (status?: string) => void | Promise<void> }) {
  const [busy, setBusy] = useState(false);
  const [preview, setPreview] = useState<{ url: string; expires: string } | null>(null);
  const trashed = record.status === 'trash';

  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    try {
      await fn();
    } catch (e) {
      toast(e instanceof Error ? e.message : String(e), 'error');
    } finally {
      setBusy(false);
    }
  };

  const trash = () =>
    run(async () => {
      const scope = await chooseScope(record, 'trash');
      if (scope === false) return;
      await seriesAction('trash', record.id, scope);
      await onChanged('trash');
      toast(t(scope === 'all' && (record.recurring_event_id || record.recurrence?.length) ? 'series.trashedSeries' : 'series.trashed'), 'success', {
        ms: UNDO_MS,
        action: {
          label: t('series.undo'),
          run: async () => {
            try {
              await seriesAction('restore', record.id, scope);
              toast(t('series.restored'));
              await onChanged();
            } catch (e) {
              toast(e instanceof Error ? e.message : String(e), 'error');
            }
          },
        },
      });
    });

  const restore = () =>
    run(async () => {
      const scope = await chooseScope(record, 'restore');
      if (scope === false) return;
      await seriesAction('restore', record.id, scope);
      toast(t('series.restored'));
      await onChanged();
    });

  const copyPreview = () =>
    run(async () => {
      const res = await api<{ url: string; expires: string }>(`${ADMIN_NS}/events/${record.id}/preview`, { method: 'POST' });
      setPreview(res.data);
      let copied = false;
      try {
        await navigator.clipboard.writeText(res.data.url);
        copied = true;
      } catch {
        // No clipboard (an insecure origin, a refusal): the link is in the field below to copy by hand.
      }
      toast(t(copied ? 'series.previewCopied' : 'series.previewShown'), 'info');
    });

  return (
    <div class="event-actions">
      <div class="actions">
        {trashed ? (
          <button type="button" class="secondary" disabled={busy} onClick={() => void restore()}>
            {t('series.restore')}
          </button>
        ) : (
          <button type="button" class="danger" disabled={busy} onClick={() => void trash()}>
            {t('series.trash')}
          </button>
        )}
        {!trashed && record.status !== 'publish' && (
          <button type="button" class="secondary" disabled={busy} onClick={() => void copyPreview()}>
            {t('series.copyPreview')}
          </button>
        )}
      </div>
      {preview && (
        <div class="field preview-link">
          <label for="preview-link">{t('series.previewLink')}</label>
          <input id="preview-link" type="url" readOnly value={preview.url} onFocus={(e) => (e.currentTarget as HTMLInputElement).select()} aria-describedby="preview-link-help" />
          <p class="help" id="preview-link-help">
            {t('series.previewHelp', { date: formatDate(preview.expires, { dateStyle: 'medium' }) })}{' '}
            <a href={preview.url} target="_blank" rel="noopener">
              {t('series.openPreview')}
            </a>
          </p>
        </div>
      )}
    </div>
  );
}
