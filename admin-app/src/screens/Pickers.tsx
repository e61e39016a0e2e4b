/** The event editor's pickers: venue and organizers (with inline creation) and terms (categories as a tree, tags). */
import { useState } from 'preact/hooks';
import { api, fieldErrors } from '../lib/api';
import { NS, type TermRef } from '../lib/events';
import { t } from '../lib/i18n';
import { useApi } from '../components/useApi';
import { Fieldset, SelectField, TextField } from '../components/Fields';
import { toast } from '../components/Toast';

interface Linked {
  id: number;
  venue?: string;
  organizer?: string;
}

export function VenuePicker({ value, onChange }: { value: number | null; onChange: (id: number | null) => void }) {
  const venues = useApi<{ venues: Linked[] }>(`${NS}/venues`, { per_page: 100, status: 'any' });
  const [adding, setAdding] = useState(false);
  const [form, setForm] = useState({ venue: '', address: '', city: '', country: '', zip: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const create = async () => {
    try {
      const res = await api<Linked>(`${NS}/venues`, { method: 'POST', body: { ...form, status: 'publish' } });
      toast(t('picker.venueCreated', { name: form.venue }));
      setAdding(false);
      setForm({ venue: '', address: '', city: '', country: '', zip: '' });
      await venues.reload();
      onChange(res.data.id);
    } catch (e) {
      setErrors({ venue: e instanceof Error ? e.message : String(e), ...fieldErrors(e) });
    }
  };
  return (
    <Fieldset legend={t('editor.venue')}>
      <SelectField
        label={t('editor.venue')}
        name="venue"
        value={value ? String(value) : ''}
        onChange={(v) => onChange(v ? Number(v) : null)}
        options={[{ value: '', label: t('common.none') }, ...(venues.data?.venues ?? []).map((v) => ({ value: String(v.id), label: v.venue ?? String(v.id) }))]}
      />
      {!adding ? (
        <button type="button" class="secondary" onClick={() => setAdding(true)}>
          {t('picker.newVenue')}
        </button>
      ) : (
        <div class="card">
          <TextField label={t('venue.name')} name="new-venue" required value={form.venue} onInput={(v) => setForm({ ...form, venue: v })} error={errors.venue} />
          <TextField label={t('venue.address')} name="new-venue-address" value={form.address} onInput={(v) => setForm({ ...form, address: v })} />
          <TextField label={t('venue.city')} name="new-venue-city" value={form.city} onInput={(v) => setForm({ ...form, city: v })} />
          <TextField label={t('venue.zip')} name="new-venue-zip" value={form.zip} onInput={(v) => setForm({ ...form, zip: v })} />
          <TextField label={t('venue.country')} name="new-venue-country" value={form.country} onInput={(v) => setForm({ ...form, country: v })} />
          <div class="actions">
            <button type="button" onClick={() => void create()} disabled={!form.venue.trim()}>
              {t('picker.createVenue')}
            </button>
            <button type="button" class="secondary" onClick={() => setAdding(false)}>
              {t('common.cancel')}
            </button>
          </div>
        </div>
      )}
    </Fieldset>
  );
}

export function OrganizerPicker({ value, onChange }: { value: number[]; onChange: (ids: number[]) => void }) {
  const organizers = useApi<{ organizers: Linked[] }>(`${NS}/organizers`, { per_page: 100, status: 'any' });
  const [adding, setAdding] = useState(false);
  const [form, setForm] = useState({ organizer: '', email: '', phone: '', website: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const create = async () => {
    try {
      const body: Record<string, string> = { organizer: form.organizer, status: 'publish' };
      for (const k of ['email', 'phone', 'website'] as const) if (form[k]) body[k] = form[k];
      const res = await api<Linked>(`${NS}/organizers`, { method: 'POST', body });
      toast(t('picker.organizerCreated', { name: form.organizer }));
      setAdding(false);
      setForm({ organizer: '', email: '', phone: '', website: '' });
      await organizers.reload();
      onChange([...value, res.data.id]);
    } catch (e) {
      setErrors({ organizer: e instanceof Error ? e.message : String(e), ...fieldErrors(e) });
    }
  };
  return (
    <Fieldset legend={t('editor.organizers')}>
      <ul class="tree">
        {(organizers.data?.organizers ?? []).map((o) => (
          <li key={o.id} class="field checkbox">
            <input
              type="checkbox"
              id={`org-${o.id}`}
              checked={value.includes(o.id)}
              onChange={(e) => onChange((e.target as HTMLInputElement).checked ? [...value, o.id] : value.filter((x) => x !== o.id))}
            />
            <label for={`org-${o.id}`}>{o.organizer}</label>
          </li>
        ))}
      </ul>
      {!adding ? (
        <button type="button" class="secondary" onClick={() => setAdding(true)}>
          {t('picker.newOrganizer')}
        </button>
      ) : (
        <div class="card">
          <TextField label={t('organizer.name')} name="new-organizer" required value={form.organizer} onInput={(v) => setForm({ ...form, organizer: v })} error={errors.organizer} />
          <TextField label={t('organizer.email')} name="new-organizer-email" type="email" value={form.email} onInput={(v) => setForm({ ...form, email: v })} error={errors.email} />
          <TextField label={t('organizer.phone')} name="new-organizer-phone" value={form.phone} onInput={(v) => setForm({ ...form, phone: v })} />
          <TextField label={t('organizer.website')} name="new-organizer-website" type="url" value={form.website} onInput={(v) => setForm({ ...form, website: v })} error={errors.website} />
          <div class="actions">
            <button type="button" onClick={() => void create()} disabled={!form.organizer.trim()}>
              {t('picker.createOrganizer')}
            </button>
            <button type="button" class="secondary" onClick={() => setAdding(false)}>
              {t('common.cancel')}
            </button>
          </div>
        </div>
      )}
    </Fieldset>
  );
}

function Tree({ terms, parent, value, onChange, prefix }: { terms: TermRef[]; parent: number; value: number[]; onChange: (ids: number[]) => void; prefix: string }) {
  const children = terms.filter((c) => (c.parent ?? 0) === parent);
  if (children.length === 0) return null;
  return (
    <ul class="tree">
      {children.map((c) => (
        <li key={c.id}>
          <div class="field checkbox">
            <input
              type="checkbox"
              id={`${prefix}-${c.id}`}
              checked={value.includes(c.id)}
              onChange={(e) => onChange((e.target as HTMLInputElement).checked ? [...value, c.id] : value.filter((x) => x !== c.id))}
            />
            <label for={`${prefix}-${c.id}`}>{c.name}</label>
          </div>
          <Tree terms={terms} parent={c.id} value={value} onChange={onChange} prefix={prefix} />
        </li>
      ))}
    </ul>
  );
}

/** Categories (a tree) or tags (a flat list), with a field to add new ones by name (the API creates them). */
export function TermPicker({
  kind,
  value,
  onChange,
  names,
  onNames,
}: {
  kind: 'categories' | 'tags';
  value: number[];
  onChange: (ids: number[]) => void;
  names: string[];
  onNames: (n: string[]) => void;
}) {
  const terms = useApi<Record<string, TermRef[]>>(`${NS}/${kind}`, { per_page: 100, hide_empty: false });
  const [adding, setAdding] = useState('');
  const list = terms.data?.[kind] ?? [];
  return (
    <Fieldset legend={t(`editor.${kind}`)}>
      <Tree terms={list} parent={0} value={value} onChange={onChange} prefix={kind} />
      {names.length > 0 && (
        <ul class="chips" aria-label={t('picker.newTerms')}>
          {names.map((n) => (
            <li key={n}>
              {n}
              <button type="button" class="link" aria-label={t('picker.removeTerm', { name: n })} onClick={() => onNames(names.filter((x) => x !== n))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <TextField label={t(`picker.add.${kind}`)} name={`new-${kind}`} value={adding} onInput={setAdding} help={t('picker.addHelp')} />
      <button
        type="button"
        class="secondary"
        disabled={!adding.trim()}
        onClick={() => {
          onNames([...names.filter((n) => n !== adding.trim()), adding.trim()]);
          setAdding('');
        }}
      >
        {t('common.add')}
      </button>
    </Fieldset>
  );
}
