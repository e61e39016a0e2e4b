/**
 * A searchable picker (the ARIA 1.2 combobox pattern: a text input with a popup listbox). Typing
 * filters; ArrowDown/ArrowUp move through the choices (ArrowDown opens the list), Enter takes the
 * highlighted one, Escape closes the list (a second Escape puts back the chosen text). The choices
 * come from `search(text)`: a local filter, or an API search (called `delay` ms after the last key,
 * so a list of thousands is never loaded whole).
 *
 * @example
 *   <Combobox label={t('editor.venue')} name="venue" text={venueName} search={findVenues} onPick={(o) => setVenue(o.value)} />
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { t } from '../lib/i18n';
import { Extras } from './Fields';
import './Combobox.css';

export interface Choice {
  value: string;
  label: string;
  /** a second line, e.g. "recent" or a city */
  hint?: string;
}

export function Combobox(o: {
  label: string;
  name: string;
  /** the text of the current choice, shown when the input is not being typed in */
  text: string;
  search: (text: string) => Choice[] | Promise<Choice[]>;
  onPick: (choice: Choice) => void;
  delay?: number;
  help?: string;
  error?: string;
  id?: string;
}) {
  const id = o.id ?? `f-${o.name}`;
  const list = `${id}-list`;
  const [typed, setTyped] = useState<string | null>(null);
  const [open, setOpen] = useState(false);
  const [choices, setChoices] = useState<Choice[]>([]);
  const [active, setActive] = useState(-1);
  const asked = useRef(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);

  const ask = (text: string, wait: number) => {
    clearTimeout(timer.current);
    const n = ++asked.current;
    timer.current = setTimeout(async () => {
      try {
        const found = await o.search(text);
        if (n !== asked.current) return;
        setChoices(found);
        setActive(found.length ? 0 : -1);
      } catch {
        if (n === asked.current) setChoices([]);
      }
    }, wait);
  };
  useEffect(() => () => clearTimeout(timer.current), []);

  const show = (text: string, wait: number) => {
    setOpen(true);
    ask(text, wait);
  };
  const close = () => {
    setOpen(false);
    setActive(-1);
  };
  const pick = (c: Choice) => {
    o.onPick(c);
    setTyped(null);
    close();
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown') {
      e.preventDefault();
      if (!open) show(typed ?? '', 0);
      else setActive((a) => Math.min(choices.length - 1, a + 1));
    } else if (e.key === 'ArrowUp') {
      e.preventDefault();
      if (open) setActive((a) => Math.max(0, a - 1));
    } else if (e.key === 'Enter') {
      if (open && active >= 0 && choices[active]) {
        e.preventDefault();
        pick(choices[active]!);
      }
    } else if (e.key === 'Escape') {
      if (open) {
        e.preventDefault();
        e.stopPropagation();
        close();
      } else if (typed !== null) setTyped(null);
    }
  };
  const describedBy = [o.help ? `${id}-help` : '', o.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  const expanded = open && choices.length > 0;
  return (
    <div class="field combobox">
      <label for={id}>{o.label}</label>
      <input
        id={id}
        name={o.name}
        type="text"
        role="combobox"
        autoComplete="off"
        aria-autocomplete="list"
        aria-expanded={expanded ? 'true' : 'false'}
        aria-controls={list}
        aria-activedescendant={expanded && active >= 0 ? `${list}-${active}` : undefined}
        aria-describedby={describedBy || undefined}
        aria-invalid={o.error ? 'true' : undefined}
        value={typed ?? o.text}
        onInput={(e) => {
          const text = (e.target as HTMLInputElement).value;
          setTyped(text);
          show(text, o.delay ?? 0);
        }}
        onFocus={(e) => (e.target as HTMLInputElement).select()}
        onClick={() => !open && show(typed ?? '', 0)}
        onKeyDown={onKeyDown}
        onBlur={() => {
          close();
          setTyped(null);
        }}
      />
      <ul id={list} role="listbox" aria-label={o.label} class="combobox-list" hidden={!expanded}>
        {choices.map((c, i) => (
          <li
            key={`${c.value}-${i}`}
            id={`${list}-${i}`}
            role="option"
            aria-selected={i === active ? 'true' : 'false'}
            class={i === active ? 'active' : undefined}
            // Keep the focus in the input: a click on a choice must not blur it first.
            onMouseDown={(e) => e.preventDefault()}
            onClick={() => pick(c)}
          >
            {c.label}
            {c.hint && <span class="hint"> · {c.hint}</span>}
          </li>
        ))}
      </ul>
      {open && choices.length === 0 && typed && (
        <p class="help" role="status">
          {t('picker.noMatch')}
        </p>
      )}
      <Extras id={id} o={o} />
    </div>
  );
}
