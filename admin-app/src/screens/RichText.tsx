/**
 * The description editor: Quill (snow theme), loaded only when the editor opens (its own chunk, out
 * of the initial screen's budget). It edits HTML; the server sanitises what it stores, and the
 * editor shows the stored HTML after a save.
 */
import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import Quill from 'quill';
import 'quill/dist/quill.snow.css';
import { t } from '../lib/i18n';

/**
 * Shows `html` in the editor without taking the focus and without a change event: Quill's
 * `dangerouslyPasteHTML` also selects the start of the text, which focuses the editor, so the
 * editor loading (its own chunk, late on a slow connection) took the caret from the title field
 * while the user typed there, and the rest of the title went into the description.
 */
function setHtml(q: Quill, html: string): void {
  q.setContents(q.clipboard.convert({ html: html || '', text: '' }), 'silent');
}

/** The editor's content as `onChange` gives it ('' when empty). */
const htmlOf = (q: Quill): string => (q.getLength() <= 1 ? '' : q.root.innerHTML);

export function RichText({ value, onChange, labelId }: { value: string; onChange: (html: string) => void; labelId: string }) {
  const host = useRef<HTMLDivElement>(null);
  const quill = useRef<Quill | null>(null);
  const last = useRef(value);
  useEffect(() => {
    if (!host.current || quill.current) return;
    const q = new Quill(host.current, {
      theme: 'snow',
      modules: {
        toolbar: [[{ header: [2, 3, false] }], ['bold', 'italic', 'underline', 'link'], [{ list: 'ordered' }, { list: 'bullet' }], ['blockquote', 'clean']],
        // Tab leaves the editor (no keyboard trap, WCAG 2.1.2): Quill's own Tab bindings insert a tab or indent.
        keyboard: {
          bindings: {
            tab: { key: 'Tab', handler: () => true },
            indent: { key: 'Tab', format: ['blockquote', 'indent', 'list'], handler: () => true },
            outdent: { key: 'Tab', shiftKey: true, format: ['blockquote', 'indent', 'list'], handler: () => true },
          },
        },
      },
    });
    setHtml(q, value);
    q.root.setAttribute('aria-labelledby', labelId);
    q.root.setAttribute('aria-multiline', 'true');
    q.root.setAttribute('role', 'textbox');
    // Quill's toolbar buttons have no names: name them from their format.
    const toolbar = host.current.parentElement?.querySelector('.ql-toolbar');
    toolbar?.setAttribute('aria-label', t('rich.toolbar'));
    toolbar?.setAttribute('role', 'toolbar');
    toolbar?.querySelectorAll<HTMLElement>('button, .ql-picker-label').forEach((b) => {
      const format =
        [...b.classList, ...(b.parentElement?.classList ?? [])].find((c) => c.startsWith('ql-') && !['ql-picker', 'ql-picker-label', 'ql-active', 'ql-expanded'].includes(c))?.slice(3) ?? 'format';
      const value = b.getAttribute('value');
      b.setAttribute('aria-label', t(`rich.${format}${value ? `.${value}` : ''}`));
    });
    q.on('text-change', () => {
      const html = htmlOf(q);
      last.current = html;
      onChange(html);
    });
    quill.current = q;
  }, []);
  // A value from outside (a merge, the stored version after a save) replaces the content; the
  // editor's own value coming back does not. Checked as the render commits (a layout effect), with
  // the value of that render: a passive effect could run late, when the next render starts, with
  // the value of the render before while a faster keystroke had changed the content since; it then
  // put the older value back and the caret at the start, so fast typing came out scrambled.
  useLayoutEffect(() => {
    const q = quill.current;
    if (q && value !== last.current && value !== htmlOf(q)) {
      last.current = value;
      setHtml(q, value);
    }
  }, [value]);
  return (
    <div class="rich">
      <div ref={host} />
    </div>
  );
}
