/**
 * Parts of the event editor: the occurrences a series generated, and the conflict panel of a save
 * refused because someone else changed the event (the fields both changed, each with the version
 * loaded, theirs and mine, and a choice).
 */
import { useEffect, useRef } from 'preact/hooks';
import { formatDate, t } from '../lib/i18n';
import { NS, type EventList, type EventRecord } from '../lib/events';
import { fieldLabel, shown, type Draft } from '../lib/event-draft';
import { useApi } from '../components/useApi';
import { Link } from '../components/Link';

/** A save refused with 412 whose merge left fields both sides changed. */
export interface Conflict {
  theirs: EventRecord;
  etag: string;
  theirsDraft: Draft;
  base: Draft;
  fields: string[];
  choice: Record<string, 'mine' | 'theirs'>;
  /** who changed it last (the admin API's `last_editor`), when known */
  who: string | null;
  scope: string | undefined;
}

/** The occurrences the server generated for a series (`?post_parent=`), next first. */
export function SeriesOccurrences({ id }: { id: number }) {
  const list = useApi<EventList>(`${NS}/events`, { post_parent: id, per_page: 10, status: 'any' });
  if (!list.data || list.data.events.length === 0) return null;
  return (
    <section class="card" aria-labelledby="series-occurrences">
      <h2 id="series-occurrences">{t('editor.occurrences', { n: list.data.total })}</h2>
      <ol class="occurrences">
        {list.data.events.map((e) => (
          <li key={e.id}>
            <Link to={`/events/${e.id}`}>{formatDate(e.utc_start_date, { dateStyle: 'full', timeStyle: e.all_day ? undefined : 'short', timeZone: e.timezone || undefined })}</Link>{' '}
            {e.title !== list.data!.events[0]!.title ? `· ${e.title}` : ''}
          </li>
        ))}
      </ol>
    </section>
  );
}

/**
 * The fields both sides changed, each with the version loaded (before), theirs and mine, and a
 * choice; who changed theirs and when. Everything else is merged already.
 */
export function ConflictPanel({
  conflict: c,
  mine,
  names,
  onChoose,
  onSave,
  onTakeTheirs,
}: {
  conflict: Conflict;
  mine: Draft;
  names: Map<string, string>;
  onChoose: (c: Conflict) => void;
  onSave: (c: Conflict) => void;
  onTakeTheirs: (c: Conflict) => void;
}) {
  const when = formatDate(c.theirs.modified_utc ?? c.theirs.modified);
  const value = (text: string) => (text === '' ? <em>{t('editor.empty')}</em> : text);
  // The keyboard goes to the question (the panel opens above the form, away from the Save button).
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section class="notice error conflict-panel" role="alert" aria-labelledby="conflict-title">
      <h2 id="conflict-title" tabIndex={-1} ref={heading}>
        {t('editor.conflict')}
      </h2>
      <p>{c.who ? t('editor.conflictBy', { who: c.who, when }) : t('editor.conflictByUnknown', { when })}</p>
      <p>{t('editor.conflictMerged')}</p>
      {c.fields.map((f) => (
        <fieldset class="conflict-field" key={f}>
          <legend>{fieldLabel(f)}</legend>
          <dl>
            <div>
              <dt>{t('editor.base')}</dt>
              <dd>{value(shown(f, c.base, names))}</dd>
            </div>
            <div>
              <dt>{t('editor.theirsShort')}</dt>
              <dd>{value(shown(f, c.theirsDraft, names))}</dd>
            </div>
            <div>
              <dt>{t('editor.mine')}</dt>
              <dd>{value(shown(f, mine, names))}</dd>
            </div>
          </dl>
          <div class="choices">
            {(['mine', 'theirs'] as const).map((side) => (
              <label key={side}>
                <input type="radio" name={`conflict-${f}`} value={side} checked={(c.choice[f] ?? 'mine') === side} onChange={() => onChoose({ ...c, choice: { ...c.choice, [f]: side } })} />{' '}
                {t(side === 'mine' ? 'editor.chooseMine' : 'editor.chooseTheirs')}
              </label>
            ))}
          </div>
        </fieldset>
      ))}
      <div class="actions">
        <button type="button" onClick={() => onSave(c)}>
          {t('editor.saveMine')}
        </button>
        <button type="button" class="secondary" onClick={() => onTakeTheirs(c)}>
          {t('editor.takeTheirs')}
        </button>
      </div>
    </section>
  );
}
