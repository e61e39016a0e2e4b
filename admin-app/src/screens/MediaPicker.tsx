/**
 * The event editor's picture field: the chosen image (a preview with its alt text), an image URL
 * as before, a library dialog (search, choose), an upload (file picker, drag and drop, paste:
 * MediaUpload.tsx), the alt text of an uploaded image (saved to the media library) and removal.
 * The event keeps the image's URL (`image`), which the server maps back to the library's record.
 *
 * @example
 *   <MediaPicker value={draft.image} onChange={(url) => update({ image: url })} error={errors.image} />
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api } from '../lib/api';
import { can } from '../lib/session';
import { t } from '../lib/i18n';
import { TextField } from '../components/Fields';
import { toast } from '../components/Toast';
import { MEDIA_NS, MediaUpload, previewOf, type MediaItem } from './MediaUpload';

export function MediaPicker({ value, onChange, error }: { value: string; onChange: (url: string) => void; error?: string }) {
  const [item, setItem] = useState<MediaItem | null>(null);
  const [alt, setAlt] = useState('');
  const [open, setOpen] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);

  // The library's record of the image shown (to edit its alt text), found by its URL.
  useEffect(() => {
    if (!can('upload_files') || !/^https?:\/\//.test(value) || item?.url === value) return;
    let live = true;
    api<MediaItem[]>(MEDIA_NS, { query: { url: value, per_page: 1 } })
      .then((res) => {
        if (live) {
          setItem(res.data[0] ?? null);
          setAlt(res.data[0]?.alt_text ?? '');
        }
      })
      .catch(() => live && setItem(null));
    return () => {
      live = false;
    };
  }, [value]);

  const choose = (chosen: MediaItem) => {
    setItem(chosen);
    setAlt(chosen.alt_text);
    onChange(chosen.url);
  };
  const saveAlt = async () => {
    if (!item) return;
    try {
      const res = await api<MediaItem>(`${MEDIA_NS}/${item.id}`, { method: 'PATCH', body: { alt_text: alt } });
      setItem(res.data);
      toast(t('media.altSaved'));
    } catch (e) {
      toast((e as Error).message, 'error');
    }
  };
  const openLibrary = () => {
    setOpen(true);
    dialog.current?.showModal();
  };
  const shown = item && item.url === value ? item : null;
  // Contributors cannot upload nor read the library (`upload_files`): the URL field alone, as before.
  const mayUpload = can('upload_files');

  return (
    <div class="media-picker">
      {/^https?:\/\//.test(value) && <img class="image-preview" src={shown ? previewOf(shown) : value} alt={shown?.alt_text || t('editor.imagePreview')} />}
      <TextField label={t('editor.image')} name="image" type="url" value={value} onInput={onChange} error={error} />
      {shown && (
        <div class="media-alt">
          <TextField label={t('media.alt')} name="image_alt" value={alt} onInput={setAlt} help={t('media.altHelp')} />
          <button type="button" class="secondary" onClick={() => void saveAlt()} disabled={alt === shown.alt_text}>
            {t('media.saveAlt')}
          </button>
        </div>
      )}
      <div class="media-actions">
        {mayUpload && (
          <button type="button" class="secondary" onClick={openLibrary}>
            {t('media.fromLibrary')}
          </button>
        )}
        {value !== '' && (
          <button type="button" class="secondary" onClick={() => onChange('')}>
            {t('media.remove')}
          </button>
        )}
      </div>
      {mayUpload && <MediaUpload id="event-picture-file" onUploaded={(uploaded) => choose(uploaded)} />}
      <dialog ref={dialog} class="media-dialog" aria-labelledby="media-dialog-title" onClose={() => setOpen(false)}>
        <h2 id="media-dialog-title">{t('media.fromLibrary')}</h2>
        {open && (
          <Library
            onChoose={(chosen) => {
              choose(chosen);
              dialog.current?.close();
            }}
          />
        )}
        <button type="button" class="secondary" onClick={() => dialog.current?.close()}>
          {t('media.close')}
        </button>
      </dialog>
    </div>
  );
}

/** The library in the dialog: a search and the images, each a button that chooses it. */
function Library({ onChoose }: { onChoose: (item: MediaItem) => void }) {
  const [search, setSearch] = useState('');
  const [items, setItems] = useState<MediaItem[] | null>(null);
  const [problem, setProblem] = useState('');
  useEffect(() => {
    let live = true;
    const timer = setTimeout(() => {
      api<MediaItem[]>(MEDIA_NS, { query: { search, per_page: 30 } })
        .then((res) => live && setItems(res.data))
        .catch((e: Error) => live && setProblem(e.message));
    }, 200);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [search]);
  return (
    <div>
      <TextField label={t('media.search')} name="media-search" type="search" value={search} onInput={setSearch} />
      {problem && <p role="alert">{problem}</p>}
      {items === null ? (
        <p>{t('media.loading')}</p>
      ) : items.length === 0 ? (
        <p>{t('media.empty')}</p>
      ) : (
        <ul class="media-grid">
          {items.map((i) => (
            <li key={i.id}>
              {/* Its name is what it shows: the picture (its alt text) and the file's name. */}
              <button type="button" class="media-choice" onClick={() => onChoose(i)}>
                <img src={previewOf(i, 150)} alt={i.alt_text} width={150} height={150} loading="lazy" />
                <span>{i.filename}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
