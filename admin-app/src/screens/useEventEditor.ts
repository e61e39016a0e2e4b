/**
 * The event editor's state and actions: the event loaded with its ETag (and any kept changes merged
 * onto it), the draft and its edits, the kept copy and the lock (editor-session.ts); the save and
 * the conflict panel's answers are editor-save.ts.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../lib/api';
import { threeWay } from '../lib/merge';
import { NS, type EventRecord } from '../lib/events';
import { t } from '../lib/i18n';
import { addGuard } from '../lib/router';
import { draftOf, emptyDraft, FIELDS, type Draft } from '../lib/event-draft';
import type { Conflict } from './EditorParts';
import { readKept, useEditLock, useKeptDraft, withTypedCost } from './editor-session';
import { conflictOf, useEditorSave, type SaveContext } from './editor-save';

/** Everything the editor's form shows and does for event `id` (`new` for a new one). */
export function useEventEditor(id: string) {
  const isNew = id === 'new';
  const [original, setOriginal] = useState<EventRecord | null>(null);
  const [etag, setEtag] = useState<string | undefined>(undefined);
  const [draft, setDraft] = useState<Draft | null>(isNew ? emptyDraft() : null);
  const [dirty, setDirty] = useState(false);
  const [restored, setRestored] = useState(false);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | undefined>(undefined);
  const [conflict, setConflict] = useState<Conflict | null>(null);
  const [stored, setStored] = useState<string | null>(null);
  /** the version the draft was made on (what the editor loaded, or merged onto) */
  const [base, setBase] = useState<Draft | null>(null);
  const dirtyRef = useRef(false);
  dirtyRef.current = dirty;
  /** the draft as typed now: what a save's answer is merged into when typing went on meanwhile */
  const draftRef = useRef<Draft | null>(null);
  draftRef.current = draft;
  const baseRef = useRef<Draft | null>(null);
  baseRef.current = base;

  useEffect(() => addGuard(() => (dirtyRef.current ? t('editor.leave') : null)), []);
  const { persist, forget } = useKeptDraft(id, baseRef);
  const others = useEditLock(id, isNew);
  const saveContext: SaveContext = {
    id,
    isNew,
    draftRef,
    baseRef,
    dirtyRef,
    persist,
    forget,
    setDraft,
    setBase,
    setOriginal,
    setEtag,
    setDirty,
    setRestored,
    setConflict,
    setStored,
    setErrors,
    setFormError,
  };

  const load = async () => {
    setLoadError(null);
    const kept = readKept(id);
    if (isNew) {
      if (kept) {
        setDraft(kept.draft);
        setDirty(true);
        setRestored(true);
      }
      return;
    }
    try {
      // The edit context: a password-protected event is answered whole to who may edit it.
      const res = await api<EventRecord>(`${NS}/events/${id}`, { query: { context: 'edit' } });
      const data = await withTypedCost(res.data);
      const fresh = draftOf(data);
      const freshEtag = res.headers.get('etag') ?? undefined;
      setOriginal(data);
      setEtag(freshEtag);
      setBase(fresh);
      if (kept) {
        setDirty(true);
        setRestored(true);
        // Changes kept from an older version: merged onto the stored one as a 412 would be.
        const { merged, conflicts } = threeWay(FIELDS, kept.base ?? fresh, kept.draft, fresh);
        setDraft(merged);
        if (conflicts.length) setConflict(await conflictOf(id, data, freshEtag ?? '', kept.base ?? fresh, conflicts, undefined));
      } else setDraft(fresh);
    } catch (e) {
      setLoadError(e);
    }
  };
  useEffect(() => {
    void load();
  }, [id]);

  const update = (patch: Partial<Draft>) => {
    setDraft((d) => {
      const next = { ...d!, ...patch };
      draftRef.current = next;
      persist(next);
      return next;
    });
    setDirty(true);
  };

  const discard = () => {
    forget();
    setDirty(false);
    setRestored(false);
    setConflict(null);
    setDraft(original ? draftOf(original) : emptyDraft());
  };

  const takeTheirs = (c: Conflict) => {
    forget();
    setOriginal(c.theirs);
    setEtag(c.etag);
    setBase(c.theirsDraft);
    setDraft(c.theirsDraft);
    setDirty(false);
    setRestored(false);
    setConflict(null);
  };

  const { saving, save, saveChoices } = useEditorSave(saveContext, { draft, base, etag, original });

  return {
    isNew,
    others,
    original,
    setOriginal,
    etag,
    draft,
    dirty,
    restored,
    loadError,
    errors,
    formError,
    saving,
    conflict,
    setConflict,
    stored,
    load,
    update,
    discard,
    takeTheirs,
    saveChoices,
    save,
  };
}

/** The editor's state and actions, as the form's parts receive them. */
export type EventEditing = ReturnType<typeof useEventEditor>;
