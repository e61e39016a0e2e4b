/**
 * The event editor's pickers: the time zone and the venue as searchable comboboxes (the site's
 * zone and the zones chosen lately first; venues and organizers from the API's `search`, never the
 * whole list; both with inline creation) and terms (categories as a tree, tags).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, fieldErrors } from '../lib/api';
import { NS, type TermRef } from '../lib/events';
import { t } from '../lib/i18n';
import { boot } from '../lib/session';
import { useApi } from '../components/useApi';
import { Fieldset, TextField } from '../components/Fields';
import { Combobox, type Choice } from '../components/Combobox';
import { toast } from '../components/Toast';

let zones: string[] | null = null;
function timeZones(): string[] {
  if (!zones) {
    try {
      zones = (Intl as unknown as { supportedValuesOf(k: string): string[] }).supportedValuesOf('timeZone');
    } catch {
      zones = [];
    }
    if (!zones.includes('UTC')) zones = ['UTC', ...zones];
  }
  return zones;
}

const RECENT_ZONES = 'calendar-admin-recent-zones';
const MAX_SHOWN = 50;

function recentZones(): string[] {
  try {
    const list: unknown = JSON.parse(localStorage.getItem(RECENT_ZONES) ?? '[]');
    return Array.isArray(list) ? list.filter((z): z is string => typeof z === 'string') : [];
  } catch {
    return [];
  }
}

function rememberZone(zone: string): void {
  try {
    localStorage.setItem(RECENT_ZONES, JSON.stringify([zone, ...recentZones().filter((z) => z !== zone)].slice(0, 5)));
  } catch {
    /* storage refused */
  }
}

/** The zones matching `text` (words in any order, `_` read as a space): the site's zone, then recent ones, then the rest. */
export function findZones(text: string): Choice[] {
  const words = text.toLowerCase().replace(/_/g, ' ').split(/\s+/).filter(Boolean);
  const site = boot.timezone || 'UTC';
  const recent = recentZones().filter((z) => z !== site);
  const ordered = [site, ...recent, ...timeZones().filter((z) => z !== site && !recent.includes(z))];
  const hits = ordered.filter((z) => {
    const name = z.toLowerCase().replace(/_/g, ' ');
    return words.every((w) => name.includes(w));
  });
  return hits.slice(0, MAX_SHOWN).map((z) => ({ value: z, label: z, hint: z === site ? t('picker.siteZone') : recent.includes(z) ? t('picker.recent') : undefined }));
}

export function TimeZonePicker({ value, onChange, error }: { value: string; onChange: (zone: string) => void; error?: string }) {
  return (
    <Combobox
      label={t('editor.timezone')}
      name="timezone"
      text={value}
      search={findZones}
      onPick={(c) => {
        rememberZone(c.value);
        onChange(c.value);
      }}
      help={t('picker.typeToSearch')}
      error={error}
    />
  );
}

interface Linked {
  id: number;
  venue?: string;
  organizer?: string;
}

async function findVenues(text: string): Promise<Choice[]> {
  // The edit context: a password-protected venue is answered whole (its name) to who may edit it.
  const res = await api<{ venues: Linked[] }>(`${NS}/venues`, { query: { search: text.trim() || undefined, per_page: 20, status: 'any', context: 'edit' } });
  const found = res.data.venues.map((v) => ({ value: String(v.id), label: v.venue ?? String(v.id) }));
  return text.trim() ? found : [{ value: '', label: t('common.none') }, ...found];
}

export function VenuePicker({ value, onChange }: { value: number | null; onChange: (id: number | null) => void }) {
  const [name, setName] = useState('');
  const [adding, setAdding] = useState(false);
  const [form, setForm] = useState({ venue: '', address: '', city: '', country: '', zip: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  // The chosen venue's name (the event gives only its id).
  useEffect(() => {
    if (!value) return setName('');
    let stale = false;
    api<Linked>(`${NS}/venues/${value}`, { query: { context: 'edit' } })
      .then((res) => !stale && setName(res.data.venue ?? String(value)))
      .catch(() => !stale && setName(String(value)));
    return () => {
      stale = true;
    };
  }, [value]);
  const create = async () => {
    try {
      const res = await api<Linked>(`${NS}/venues`, { method: 'POST', body: { ...form, status: 'publish' } });
      toast(t('picker.venueCreated', { name: form.venue }));
      setAdding(false);
      setForm({ venue: '', address: '', city: '', country: '', zip: '' });
      setName(form.venue);
      onChange(res.data.id);
    } catch (e) {
      setErrors({ venue: e instanceof Error ? e.message : String(e), ...fieldErrors(e) });
    }
  };
  return (
    <Fieldset legend={t('editor.venue')}>
      <Combobox
        label={t('editor.venue')}
        name="venue"
        text={value ? name : ''}
        search={findVenues}
        delay={250}
        onPick={(c) => {
          setName(c.value ? c.label : '');
          onChange(c.value ? Number(c.value) : null);
        }}
        help={t('picker.typeToSearch')}
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

async function findOrganizers(text: string, chosen: number[]): Promise<Choice[]> {
  const res = await api<{ organizers: Linked[] }>(`${NS}/organizers`, { query: { search: text.trim() || undefined, per_page: 20, status: 'any', context: 'edit' } });
  return res.data.organizers.filter((o) => !chosen.includes(o.id)).map((o) => ({ value: String(o.id), label: o.organizer ?? String(o.id) }));
}

export function OrganizerPicker({ value, onChange }: { value: number[]; onChange: (ids: number[]) => void }) {
  // Names of the chosen organizers (the event gives only their ids), filled as they are known.
  const [names, setNames] = useState<Record<number, string>>({});
  const [adding, setAdding] = useState(false);
  const [form, setForm] = useState({ organizer: '', email: '', phone: '', website: '' });
  const [errors, setErrors] = useState<Record<string, string>>({});
  const missing = value.filter((id) => !(id in names));
  useEffect(() => {
    if (missing.length === 0) return;
    let stale = false;
    void Promise.all(
      missing.map((id) =>
        api<Linked>(`${NS}/organizers/${id}`, { query: { context: 'edit' } }).then(
          (r) => [id, r.data.organizer ?? String(id)] as const,
          () => [id, String(id)] as const,
        ),
      ),
    ).then((found) => !stale && setNames((n) => ({ ...n, ...Object.fromEntries(found) })));
    return () => {
      stale = true;
    };
  }, [missing.join(',')]);
  const create = async () => {
    try {
      const body: Record<string, string> = { organizer: form.organizer, status: 'publish' };
      for (const k of ['email', 'phone', 'website'] as const) if (form[k]) body[k] = form[k];
      const res = await api<Linked>(`${NS}/organizers`, { method: 'POST', body });
      toast(t('picker.organizerCreated', { name: form.organizer }));
      setAdding(false);
      setNames((n) => ({ ...n, [res.data.id]: form.organizer }));
      setForm({ organizer: '', email: '', phone: '', website: '' });
      onChange([...value, res.data.id]);
    } catch (e) {
      setErrors({ organizer: e instanceof Error ? e.message : String(e), ...fieldErrors(e) });
    }
  };
  return (
    <Fieldset legend={t('editor.organizers')}>
      {value.length > 0 && (
        <ul class="chips" aria-label={t('editor.organizers')}>
          {value.map((id) => (
            <li key={id}>
              {names[id] ?? '…'}{' '}
              <button type="button" class="link" aria-label={t('picker.removeTerm', { name: names[id] ?? String(id) })} onClick={() => onChange(value.filter((x) => x !== id))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      <Combobox
        label={t('picker.addOrganizer')}
        name="organizer-search"
        text=""
        search={(text) => findOrganizers(text, value)}
        delay={250}
        onPick={(c) => {
          const id = Number(c.value);
          setNames((n) => ({ ...n, [id]: c.label }));
          if (!value.includes(id)) onChange([...value, id]);
        }}
        help={t('picker.typeToSearch')}
      />
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
