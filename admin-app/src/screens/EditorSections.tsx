/**
 * The event editor's sections: the notices above the form (series, restored changes, who else has
 * the event open), then the form's fieldsets: the text, the dates, publication, flags and details.
 * Each reads the draft and writes its changes through `update` (useEventEditor.ts).
 */
import { formatDate, t } from '../lib/i18n';
import { navigate } from '../lib/router';
import { boot, can } from '../lib/session';
import { PageHeader } from '../components/PageHeader';
import { Checkbox, Fieldset, SelectField, TextArea, TextField } from '../components/Fields';
import { lazyComponent } from '../components/Lazy';
import { TimeZonePicker } from './Pickers';
import { MediaPicker } from './MediaPicker';
import { EventActions } from './EventActions';
import type { Draft } from '../lib/event-draft';
import type { EventEditing } from './useEventEditor';

const RichText = lazyComponent(() => import('./RichText').then((m) => m.RichText));

/** A section of the form: the editor's state with its draft loaded. */
interface SectionProps {
  ed: EventEditing;
  draft: Draft;
}

/** The page's title and view link, and the notices above the form. */
export function EditorNotices({ ed }: { ed: EventEditing }) {
  const { original, isNew, others } = ed;
  const title = isNew ? t('editor.new') : t('editor.edit', { title: original?.title ?? '' });
  const isPublic = original && ['publish'].includes(original.status);
  return (
    <>
      <PageHeader title={title}>
        {!isNew &&
          original &&
          (isPublic ? (
            <a class="button secondary" href={original.url} target="_blank" rel="noopener">
              {t('editor.view')}
            </a>
          ) : (
            <span class="muted">{t('editor.notPublic')}</span>
          ))}
      </PageHeader>
      {original?.recurring_event_id ? (
        <p class="notice">
          {t('editor.occurrenceOf')}{' '}
          <a href={`${boot.adminPath}/events/${original.recurring_event_id}`} onClick={(e) => (e.preventDefault(), navigate(`/events/${original.recurring_event_id}`))}>
            {t('editor.series')}
          </a>
        </p>
      ) : null}
      {ed.restored && (
        <div class="notice warning" role="status">
          <p>{t('editor.restored')}</p>
          <button type="button" class="secondary" onClick={ed.discard}>
            {t('editor.discard')}
          </button>
        </div>
      )}
      {/* A live region there from the start, so that a notice appearing in it is announced. */}
      <div role="status">
        {others.length > 0 && (
          <div class="notice warning edit-lock">
            {others.map((o) => (
              <p key={o.id}>{t('editor.lockedBy', { name: o.name })}</p>
            ))}
          </div>
        )}
      </div>
    </>
  );
}

/** Title, description (Quill, with what was stored after a save) and excerpt. */
export function MainSection({ ed: { update, errors, stored }, draft }: SectionProps) {
  return (
    <Fieldset legend={t('editor.main')}>
      <TextField label={t('editor.title')} name="title" required value={draft.title} onInput={(v) => update({ title: v })} error={errors.title} />
      <div class="field">
        <span class="label" id="description-label">
          <strong>{t('editor.description')}</strong>
        </span>
        <RichText value={draft.description} onChange={(html: string) => update({ description: html })} labelId="description-label" />
        {errors.description && (
          <p class="field-error" role="alert">
            {errors.description}
          </p>
        )}
      </div>
      {stored !== null && (
        <details>
          <summary>{t('editor.stored')}</summary>
          <div class="stored">
            <code>{stored}</code>
          </div>
        </details>
      )}
      <TextArea label={t('editor.excerpt')} name="excerpt" rows={2} value={draft.excerpt} onInput={(v) => update({ excerpt: v })} error={errors.excerpt} />
    </Fieldset>
  );
}

/** The zone, all day, and the start and end in the event's zone. */
export function WhenSection({ ed: { update, errors }, draft }: SectionProps) {
  return (
    <Fieldset legend={t('editor.when')}>
      <TimeZonePicker value={draft.timezone} onChange={(v) => update({ timezone: v })} error={errors.timezone} />
      <Checkbox label={t('editor.allDay')} name="all_day" checked={draft.all_day} onChange={(v) => update({ all_day: v })} />
      <div class="grid">
        <TextField
          label={t('editor.startDate')}
          name="startDate"
          id="f-start_date"
          type="date"
          required
          value={draft.startDate}
          onInput={(v) => update({ startDate: v, endDate: draft.endDate < v ? v : draft.endDate })}
          error={errors.startDate}
        />
        {!draft.all_day && <TextField label={t('editor.startTime')} name="startTime" type="time" value={draft.startTime} onInput={(v) => update({ startTime: v })} />}
        <TextField label={t('editor.endDate')} name="endDate" id="f-end_date" type="date" required value={draft.endDate} onInput={(v) => update({ endDate: v })} error={errors.endDate} />
        {!draft.all_day && <TextField label={t('editor.endTime')} name="endTime" type="time" value={draft.endTime} onInput={(v) => update({ endTime: v })} />}
      </div>
      <p class="help">{t('editor.zoneHelp', { zone: draft.timezone })}</p>
    </Fieldset>
  );
}

/** Status, publication date, slug, the save buttons, trash and restore, and when it was last changed. */
export function PublishSection({ ed, draft }: SectionProps) {
  const { update, errors, saving, save, original, isNew, dirty } = ed;
  const mayPublish = can('publish_tribe_events');
  const statusOptions = (mayPublish ? ['draft', 'pending', 'publish', 'future', 'private'] : ['draft', 'pending']).map((s) => ({ value: s, label: t(`status.${s}`) }));
  if (!statusOptions.some((o) => o.value === draft.status)) statusOptions.push({ value: draft.status, label: t(`status.${draft.status}`) });
  return (
    <Fieldset legend={t('editor.publish')}>
      <SelectField label={t('editor.status')} name="status" value={draft.status} onChange={(v) => update({ status: v })} options={statusOptions} error={errors.status} />
      <PasswordChoice ed={ed} draft={draft} />
      {mayPublish && (
        <TextField
          label={t('editor.publishDate')}
          name="publish"
          id="f-date"
          type="datetime-local"
          value={draft.publish}
          onInput={(v) => update({ publish: v })}
          help={t('editor.publishHelp')}
          error={errors.date}
        />
      )}
      <TextField label={t('editor.slug')} name="slug" value={draft.slug} onInput={(v) => update({ slug: v })} error={errors.slug} />
      <div class="actions">
        <button type="submit" disabled={saving}>
          {saving ? t('common.saving') : t('common.save')}
        </button>
        {mayPublish && draft.status !== 'publish' && draft.status !== 'future' && (
          <button type="button" class="secondary" disabled={saving} onClick={() => void save(draft.publish && new Date(draft.publish) > new Date() ? 'future' : 'publish')}>
            {draft.publish && new Date(draft.publish) > new Date() ? t('editor.schedule') : t('editor.publishNow')}
          </button>
        )}
        {!mayPublish && draft.status !== 'pending' && (
          <button type="button" class="secondary" disabled={saving} onClick={() => void save('pending')}>
            {t('editor.submit')}
          </button>
        )}
      </div>
      {original && !isNew && <EventActions record={original} onChanged={(status) => (status ? ed.setOriginal({ ...original, status }) : ed.load())} />}
      {dirty && <p class="help">{t('editor.unsaved')}</p>}
      {original && <p class="help">{t('editor.modified', { when: formatDate(original.modified_utc ?? original.modified) })}</p>}
    </Fieldset>
  );
}

/**
 * WordPress' "Password protected" visibility: readers see the title and dates, the rest once they
 * type the password on the event's page (a private event is the status' "Private" instead).
 */
export function PasswordChoice({ ed: { update, errors }, draft }: SectionProps) {
  return (
    <>
      <Checkbox label={t('editor.protect')} name="protect" checked={draft.protect} onChange={(v) => update({ protect: v })} help={t('editor.protectHelp')} />
      {draft.protect && (
        <TextField
          label={t('editor.password')}
          name="password"
          id="f-password"
          value={draft.password}
          onInput={(v) => update({ password: v })}
          autoComplete="off"
          help={t('editor.passwordHelp')}
          error={errors.password}
        />
      )}
    </>
  );
}

/** Featured, sticky, hidden from listings, and the map. */
export function FlagsSection({ ed: { update }, draft }: SectionProps) {
  return (
    <Fieldset legend={t('editor.flags')}>
      <Checkbox label={t('editor.featured')} name="featured" checked={draft.featured} onChange={(v) => update({ featured: v })} />
      <Checkbox label={t('editor.sticky')} name="sticky" checked={draft.sticky} onChange={(v) => update({ sticky: v })} />
      <Checkbox label={t('editor.hide')} name="hide_from_listings" checked={draft.hide_from_listings} onChange={(v) => update({ hide_from_listings: v })} />
      <Checkbox label={t('editor.showMap')} name="show_map" checked={draft.show_map} onChange={(v) => update({ show_map: v })} />
      <Checkbox label={t('editor.showMapLink')} name="show_map_link" checked={draft.show_map_link} onChange={(v) => update({ show_map_link: v })} />
    </Fieldset>
  );
}

/** The image, cost and website. */
export function DetailsSection({ ed: { update, errors }, draft }: SectionProps) {
  return (
    <Fieldset legend={t('editor.details')}>
      <MediaPicker value={draft.image} onChange={(v) => update({ image: v })} error={errors.image} />
      <TextField label={t('editor.cost')} name="cost" value={draft.cost} onInput={(v) => update({ cost: v })} error={errors.cost} />
      <TextField label={t('editor.website')} name="website" type="url" value={draft.website} onInput={(v) => update({ website: v })} error={errors.website} />
    </Fieldset>
  );
}
