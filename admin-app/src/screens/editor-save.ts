/**
 * The event editor's writes: a save sends only the fields changed from the version the draft was
 * made on, with `If-Match`; a 412 merges three ways with the stored version and saves again, or
 * hands the fields both sides changed to the conflict panel.
 */
import { useState } from 'preact/hooks';
import { api, ApiProblem, fieldErrors } from '../lib/api';
import { changedKeys, differs, take, threeWay } from '../lib/merge';
import { NS, type EventRecord } from '../lib/events';
import { t } from '../lib/i18n';
import { navigate } from '../lib/router';
import { can } from '../lib/session';
import { toast } from '../components/Toast';
import { chooseDialog } from '../components/ConfirmDialog';
import { bodyOf, draftOf, fieldNamed, FIELDS, type Draft } from '../lib/event-draft';
import type { Conflict } from './EditorParts';
import { ADMIN_NS, storageKey, withTypedCost, type EditingState, type Kept } from './editor-session';

/** The conflict panel's question for event `id`: the fields both changed, and who changed theirs last. */
export async function conflictOf(id: string, theirs: EventRecord, theirsEtag: string, from: Draft, fields: string[], scope: string | undefined): Promise<Conflict> {
  const editing = await api<EditingState>(`${ADMIN_NS}/events/${id}/editors`).catch(() => null);
  return { theirs, etag: theirsEtag, theirsDraft: draftOf(theirs), base: from, fields, choice: {}, who: editing?.data.last_editor?.name ?? null, scope };
}

/** Saving an occurrence of a series: asks whether this one, this and the following, or all change (false: cancelled). */
export function askScope() {
  return chooseDialog({
    title: t('editor.scopeTitle'),
    message: t('editor.scopeQ'),
    choices: [
      { value: 'this', label: t('editor.scope.this') },
      { value: 'following', label: t('editor.scope.following') },
      { value: 'all', label: t('editor.scope.all') },
    ],
  });
}

/** What a save reads and sets of the editor's state. */
export interface SaveContext {
  id: string;
  isNew: boolean;
  draftRef: { current: Draft | null };
  baseRef: { current: Draft | null };
  dirtyRef: { current: boolean };
  persist: (d: Draft) => void;
  forget: () => void;
  setDraft: (d: Draft) => void;
  setBase: (d: Draft) => void;
  setOriginal: (e: EventRecord) => void;
  setEtag: (etag: string | undefined) => void;
  setDirty: (dirty: boolean) => void;
  setRestored: (restored: boolean) => void;
  setConflict: (c: Conflict | null) => void;
  setStored: (html: string) => void;
  setErrors: (errors: Record<string, string>) => void;
  setFormError: (message: string | undefined) => void;
}

/**
 * Write `d`: a new event whole; an existing one as the fields changed from `from` (the version it
 * was made on, whose ETag is `ifMatch`), so that a save never reverts what someone else changed
 * meanwhile. A 412 merges with the stored version: without a field both changed, the merge is
 * saved at once; otherwise the conflict panel asks.
 */
export async function submitDraft(c: SaveContext, d: Draft, from: Draft | null, ifMatch: string | undefined, record: EventRecord | null, scope: string | undefined, attempt: number): Promise<void> {
  const { id, isNew } = c;
  const whole = bodyOf(d, isNew, record);
  let body = whole;
  if (!isNew && from) {
    const before = bodyOf(from, false, record);
    body = Object.fromEntries(changedKeys(whole, before).map((k) => [k, whole[k]]));
  }
  if (scope) {
    body.recurrence_scope = scope;
    if (scope === 'all') {
      // Moving the series' dates from an occurrence is refused: the series keeps its own dates.
      delete body.start_date;
      delete body.end_date;
    }
    // The series' rules stay as they are (for `following`, the API carries them over with COUNT reduced).
  }
  // The draft on screen as this save leaves: what is typed after it is kept over the answer.
  const sentFrom = c.draftRef.current ?? d;
  try {
    const res = await api<EventRecord>(isNew ? `${NS}/events` : `${NS}/events/${id}`, { method: 'POST', body, ifMatch: isNew ? undefined : ifMatch });
    c.forget();
    c.setDirty(false);
    c.dirtyRef.current = false;
    c.setRestored(false);
    c.setConflict(null);
    toast(d.status === 'pending' && !can('publish_tribe_events') ? t('editor.submitted') : t('common.saved'));
    c.setStored(res.data.description ?? '');
    if (isNew || res.data.id !== Number(id)) {
      const now = c.draftRef.current ?? sentFrom;
      if (FIELDS.some((f) => differs(f, now, sentFrom))) {
        // Typed while the new event was being created: kept for the event's own editor, which
        // merges it onto the stored version as it loads.
        const savedDraft = draftOf(await withTypedCost(res.data));
        const kept: Kept = { v: 2, draft: threeWay(FIELDS, sentFrom, now, savedDraft).merged, base: savedDraft };
        localStorage.setItem(storageKey(String(res.data.id)), JSON.stringify(kept));
      }
      navigate(`/events/${res.data.id}`, { replace: true, force: true });
      return;
    }
    const saved = await withTypedCost(res.data);
    c.setOriginal(saved);
    c.setEtag(res.headers.get('etag') ?? undefined);
    // A GET gives the ETag of the stored version when the write's answer carries none.
    if (!res.headers.get('etag')) {
      const again = await api<EventRecord>(`${NS}/events/${id}`, { query: { context: 'edit' } });
      c.setEtag(again.headers.get('etag') ?? undefined);
    }
    const savedDraft = draftOf(saved);
    c.setBase(savedDraft);
    c.baseRef.current = savedDraft;
    // Typed while the save was on its way (the form stays open): those fields keep what was
    // typed, the others take the stored version; the editor stays unsaved while they differ.
    const now = c.draftRef.current ?? sentFrom;
    const { merged } = threeWay(FIELDS, sentFrom, now, savedDraft);
    c.draftRef.current = merged;
    c.setDraft(merged);
    if (FIELDS.some((f) => differs(f, merged, savedDraft))) {
      c.setDirty(true);
      c.dirtyRef.current = true;
      c.persist(merged);
    }
  } catch (e) {
    if (e instanceof ApiProblem && e.status === 412) {
      const theirs = await api<EventRecord>(`${NS}/events/${id}`, { query: { context: 'edit' } });
      const theirsData = await withTypedCost(theirs.data);
      const theirsEtag = theirs.headers.get('etag') ?? '';
      const theirsDraft = draftOf(theirsData);
      const { merged, conflicts } = threeWay(FIELDS, from ?? theirsDraft, d, theirsDraft);
      c.setOriginal(theirsData);
      c.setDraft(merged);
      c.persist(merged);
      if (conflicts.length === 0 && attempt < 3) {
        c.setBase(theirsDraft);
        c.baseRef.current = theirsDraft;
        c.setEtag(theirsEtag);
        await submitDraft(c, merged, theirsDraft, theirsEtag, theirsData, scope, attempt + 1);
        return;
      }
      c.setConflict(await conflictOf(id, theirsData, theirsEtag, from ?? theirsDraft, conflicts, scope));
    } else {
      const fields = fieldErrors(e);
      const map: Record<string, string> = {};
      for (const [k, v] of Object.entries(fields)) map[k === 'start_date' ? 'startDate' : k === 'end_date' ? 'endDate' : k] = v;
      c.setErrors(map);
      c.setFormError(e instanceof Error ? e.message : String(e));
    }
  }
}

/** The form's saves: `save` (the Save and Publish buttons) and `saveChoices` (the conflict panel), with `saving` while one is on its way. */
export function useEditorSave(ctx: SaveContext, { draft, base, etag, original }: { draft: Draft | null; base: Draft | null; etag: string | undefined; original: EventRecord | null }) {
  const [saving, setSaving] = useState(false);
  const withSaving = async (run: () => Promise<void>) => {
    setSaving(true);
    ctx.setErrors({});
    ctx.setFormError(undefined);
    try {
      await run();
    } finally {
      setSaving(false);
    }
  };

  /** Save the conflict panel's choices: mine for each field, but those where theirs was chosen, onto theirs. */
  const saveChoices = (c: Conflict) => {
    if (!draft) return;
    let d = draft;
    for (const f of c.fields) if (c.choice[f] === 'theirs') d = take(fieldNamed(f), d, c.theirsDraft);
    ctx.setConflict(null);
    ctx.setOriginal(c.theirs);
    ctx.setBase(c.theirsDraft);
    ctx.setEtag(c.etag);
    ctx.setDraft(d);
    void withSaving(() => submitDraft(ctx, d, c.theirsDraft, c.etag, c.theirs, c.scope, 0));
  };

  const save = async (statusOverride?: string) => {
    if (!draft) return;
    const d = statusOverride ? { ...draft, status: statusOverride } : { ...draft };
    if (d.publish && d.status === 'publish' && new Date(d.publish) > new Date()) d.status = 'future';
    let scope: string | undefined;
    if (original?.recurring_event_id) {
      const chosen = await askScope();
      if (chosen === false) return;
      scope = chosen;
    }
    await withSaving(() => submitDraft(ctx, d, base, etag, original, scope, 0));
  };

  return { saving, save, saveChoices };
}
