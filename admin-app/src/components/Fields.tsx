/**
 * Form fields with their label, help and inline error (the API's 400s mapped to fields by
 * `fieldErrors` in lib/api.ts): the error is tied to the control (`aria-describedby`,
 * `aria-invalid`) and announced.
 *
 * @example
 *   <TextField label={t('venue.city')} name="city" value={city} onInput={setCity} error={errors.city} />
 */
import type { ComponentChildren } from 'preact';
import { t } from '../lib/i18n';

interface Base {
  label: string;
  name: string;
  error?: string;
  help?: string;
  required?: boolean;
  id?: string;
}

function describe(id: string, o: Base): { 'aria-describedby'?: string; 'aria-invalid'?: 'true' } {
  const ids = [o.help ? `${id}-help` : '', o.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return { ...(ids ? { 'aria-describedby': ids } : {}), ...(o.error ? { 'aria-invalid': 'true' as const } : {}) };
}

/** A field's help and error lines, with the ids its control's `aria-describedby` names. */
export function Extras({ id, o }: { id: string; o: Pick<Base, 'help' | 'error'> }) {
  return (
    <>
      {o.help && (
        <p class="help" id={`${id}-help`}>
          {o.help}
        </p>
      )}
      {o.error && (
        <p class="field-error" id={`${id}-error`} role="alert">
          {o.error}
        </p>
      )}
    </>
  );
}

const idOf = (o: Base) => o.id ?? `f-${o.name}`;

// Preact's input types tie `type` to the attributes each type allows: built loosely, once, here.
function inputProps(id: string, o: Parameters<typeof TextField>[0]): any {
  return {
    id,
    name: o.name,
    type: o.type ?? 'text',
    value: o.value,
    required: o.required,
    inputMode: o.inputMode,
    autoComplete: o.autoComplete,
    placeholder: o.placeholder,
    step: o.step,
    list: o.list,
    onInput: (e: Event) => o.onInput((e.target as HTMLInputElement).value),
    ...describe(id, o),
  };
}

export function TextField(
  o: Base & {
    value: string;
    onInput: (v: string) => void;
    type?: 'text' | 'url' | 'number' | 'date' | 'time' | 'datetime-local' | 'email' | 'search' | 'password';
    inputMode?: 'decimal' | 'numeric' | 'url' | 'email' | 'search';
    autoComplete?: string;
    placeholder?: string;
    step?: string;
    list?: string;
  },
) {
  const id = idOf(o);
  return (
    <div class={`field${o.error ? ' has-error' : ''}`}>
      <label for={id}>
        {o.label}
        {o.required && <span aria-hidden="true"> *</span>}
      </label>
      <input {...inputProps(id, o)} />
      <Extras id={id} o={o} />
    </div>
  );
}

export function TextArea(o: Base & { value: string; onInput: (v: string) => void; rows?: number }) {
  const id = idOf(o);
  return (
    <div class={`field${o.error ? ' has-error' : ''}`}>
      <label for={id}>{o.label}</label>
      <textarea id={id} name={o.name} rows={o.rows ?? 4} value={o.value} onInput={(e) => o.onInput((e.target as HTMLTextAreaElement).value)} {...describe(id, o)} />
      <Extras id={id} o={o} />
    </div>
  );
}

export function SelectField(o: Base & { value: string; onChange: (v: string) => void; options: Array<{ value: string; label: string }> }) {
  const id = idOf(o);
  return (
    <div class={`field${o.error ? ' has-error' : ''}`}>
      <label for={id}>{o.label}</label>
      <select id={id} name={o.name} value={o.value} onChange={(e) => o.onChange((e.target as HTMLSelectElement).value)} {...describe(id, o)}>
        {o.options.map((opt) => (
          <option key={opt.value} value={opt.value}>
            {opt.label}
          </option>
        ))}
      </select>
      <Extras id={id} o={o} />
    </div>
  );
}

export function Checkbox(o: Base & { checked: boolean; onChange: (v: boolean) => void }) {
  const id = idOf(o);
  return (
    <div class={`field checkbox${o.error ? ' has-error' : ''}`}>
      <input id={id} type="checkbox" name={o.name} checked={o.checked} onChange={(e) => o.onChange((e.target as HTMLInputElement).checked)} {...describe(id, o)} />
      <label for={id}>{o.label}</label>
      <Extras id={id} o={o} />
    </div>
  );
}

/** A group of fields with a legend. */
export function Fieldset({ legend, children }: { legend: string; children: ComponentChildren }) {
  return (
    <fieldset class="card">
      <legend>{legend}</legend>
      {children}
    </fieldset>
  );
}

/** The errors of a form that belong to no field shown (and a summary of the others). */
export function FormErrors({ message, fields }: { message?: string; fields: Record<string, string> }) {
  if (!message && Object.keys(fields).length === 0) return null;
  return (
    <div class="notice error" role="alert">
      <p>{message ?? t('common.fixErrors')}</p>
      {Object.keys(fields).length > 0 && (
        <ul>
          {Object.entries(fields).map(([k, v]) => (
            <li key={k}>
              <a href={`#f-${k}`}>{k}</a>: {v}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
