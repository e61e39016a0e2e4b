/**
 * The event editor: every field of the API's event write, dates and times in the event's own zone
 * (a zone picker), the description in Quill (lazy), venue/organizer pickers with inline creation,
 * categories as a tree and tags, the flags, status and scheduled publication, recurrence, and a
 * preview link (with trash, Undo and restore: EventActions.tsx). Safe editing (docs/admin.md, "Editing together"): the event is loaded with its
 * ETag, and a save sends only the fields the user changed, with `If-Match`. On a 412 the stored
 * version is merged three ways (what was loaded, theirs, mine): what only they changed is taken,
 * what only I changed is kept, and only fields both changed differently are asked about, per field,
 * beside who changed theirs. Unsaved changes are kept in localStorage per event with the version
 * they were made on (restored, and merged the same way, after a reload); leaving asks first. While
 * the event is open the editor holds a post lock (heartbeat), and says who else has it open, live.
 * Its model (the draft, its fields, the write's body) is lib/event-draft.ts; its state and actions
 * useEventEditor.ts (the save in editor-save.ts, the kept copy and the lock in editor-session.ts);
 * the form's sections EditorSections.tsx; the conflict panel and a series' occurrences EditorParts.tsx.
 */
import { FormErrors } from '../components/Fields';
import { ErrorState, Loading } from '../components/States';
import { OrganizerPicker, TermPicker, VenuePicker } from './Pickers';
import { RecurrenceEditor } from './RecurrenceEditor';
import { bodyOf, namesOf } from '../lib/event-draft';
import { ConflictPanel, SeriesOccurrences } from './EditorParts';
import { DetailsSection, EditorNotices, FlagsSection, MainSection, PublishSection, WhenSection } from './EditorSections';
import { useEventEditor } from './useEventEditor';

export function EventEditor({ params }: { params: Record<string, string> }) {
  const id = params.id ?? 'new';
  const ed = useEventEditor(id);
  const { original, draft, errors, conflict, update } = ed;
  if (ed.loadError) return <ErrorState error={ed.loadError} onRetry={() => void ed.load()} />;
  if (!draft) return <Loading />;
  return (
    <>
      <EditorNotices ed={ed} />
      {conflict && <ConflictPanel conflict={conflict} mine={draft} names={namesOf(original, conflict.theirs)} onChoose={ed.setConflict} onSave={ed.saveChoices} onTakeTheirs={ed.takeTheirs} />}
      <FormErrors message={ed.formError} fields={errors} />
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void ed.save();
        }}
        noValidate
      >
        <div class="editor-layout">
          <div>
            <MainSection ed={ed} draft={draft} />
            <WhenSection ed={ed} draft={draft} />
            {!original?.recurring_event_id && (
              <RecurrenceEditor
                rule={draft.rule}
                onChange={(rule) => update({ rule })}
                startDate={draft.startDate}
                startTime={draft.all_day ? '' : draft.startTime}
                schedule={{
                  start_date: bodyOf(draft, ed.isNew, original).start_date as string,
                  end_date: bodyOf(draft, ed.isNew, original).end_date as string,
                  timezone: draft.timezone,
                  all_day: draft.all_day,
                }}
                error={errors.recurrence}
              />
            )}
            {original && !original.recurring_event_id && (original.recurrence?.length ?? 0) > 0 && <SeriesOccurrences key={ed.etag} id={original.id} />}
            <VenuePicker value={draft.venue} onChange={(v) => update({ venue: v })} />
            <OrganizerPicker value={draft.organizer} onChange={(v) => update({ organizer: v })} />
          </div>
          <div>
            <PublishSection ed={ed} draft={draft} />
            <FlagsSection ed={ed} draft={draft} />
            <DetailsSection ed={ed} draft={draft} />
            <TermPicker kind="categories" value={draft.categories} onChange={(v) => update({ categories: v })} names={draft.newCategories} onNames={(n) => update({ newCategories: n })} />
            <TermPicker kind="tags" value={draft.tags} onChange={(v) => update({ tags: v })} names={draft.newTags} onNames={(n) => update({ newTags: n })} />
          </div>
        </div>
      </form>
    </>
  );
}
