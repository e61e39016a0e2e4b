/**
 * Uploading an image to the media library (`POST calendar/admin/v1/media`, multipart): a drop zone
 * that takes a dropped file, a pasted image (Ctrl+V while it has focus) or one chosen with the file
 * picker (a real `<input type=file>` behind its label, so keyboards and screen readers reach it),
 * with a progress bar while it is sent and the server's error (type, size) when it is refused.
 * The same control serves the event editor's picture field and the Media screen.
 *
 * @example
 *   <MediaUpload id="event-picture" onUploaded={(item) => choose(item)} />
 */
import { useRef, useState } from 'preact/hooks';
import { apiUrl, currentNonce } from '../lib/api';
import { t } from '../lib/i18n';
import './media.css';

export const MEDIA_NS = 'calendar/admin/v1/media';

/** A media item as the admin API answers it. */
export interface MediaItem {
  id: number;
  url: string;
  alt_text: string;
  filename: string;
  mime_type: string;
  width: number | false;
  height: number | false;
  filesize: number;
  author: number;
  date_gmt: string;
  sizes: Record<string, { width: number; height: number; url: string }>;
}

/** The smallest variant at least this wide (for previews), else the full size. */
export function previewOf(item: Pick<MediaItem, 'url' | 'sizes'>, width = 300): string {
  const fits = Object.values(item.sizes ?? {})
    .filter((s) => s.width >= width)
    .sort((a, b) => a.width - b.width)[0];
  return fits?.url ?? item.url;
}

/** Send one file; `onProgress` gets 0…1 as it goes. Rejects with the API's message. */
export function uploadFile(file: File, onProgress: (fraction: number) => void): Promise<MediaItem> {
  return new Promise((resolve, reject) => {
    const form = new FormData();
    form.append('file', file, file.name || 'pasted-image');
    const xhr = new XMLHttpRequest();
    xhr.open('POST', apiUrl(MEDIA_NS));
    xhr.setRequestHeader('x-wp-nonce', currentNonce());
    xhr.setRequestHeader('accept', 'application/json');
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      let body: { message?: string } | MediaItem | null = null;
      try {
        body = JSON.parse(xhr.responseText) as MediaItem;
      } catch {
        /* not JSON */
      }
      if (xhr.status === 201 && body) resolve(body as MediaItem);
      else reject(new Error((body as { message?: string } | null)?.message ?? t('media.uploadFailed')));
    };
    xhr.onerror = () => reject(new Error(t('media.uploadFailed')));
    xhr.send(form);
  });
}

export function MediaUpload({ id, onUploaded }: { id: string; onUploaded: (item: MediaItem) => void }) {
  const [progress, setProgress] = useState<{ name: string; fraction: number } | null>(null);
  const [error, setError] = useState('');
  const [over, setOver] = useState(false);
  const input = useRef<HTMLInputElement>(null);

  const send = async (file: File | null | undefined) => {
    if (!file || progress) return;
    setError('');
    setProgress({ name: file.name || 'image', fraction: 0 });
    try {
      const item = await uploadFile(file, (fraction) => setProgress({ name: file.name || 'image', fraction }));
      onUploaded(item);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setProgress(null);
      if (input.current) input.current.value = '';
    }
  };

  return (
    <div
      class={`media-drop${over ? ' over' : ''}`}
      tabIndex={0}
      role="group"
      aria-label={t('media.dropZone')}
      aria-describedby={`${id}-help`}
      onDragOver={(e) => {
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        void send(e.dataTransfer?.files?.[0]);
      }}
      onPaste={(e) => {
        const file = [...(e.clipboardData?.files ?? [])][0];
        if (file) {
          e.preventDefault();
          void send(file);
        }
      }}
    >
      <p id={`${id}-help`} class="help">
        {t('media.dropHelp')}
      </p>
      <input
        ref={input}
        id={id}
        class="visually-hidden-file"
        type="file"
        accept="image/jpeg,image/png,image/gif,image/webp,image/avif"
        onChange={(e) => void send((e.target as HTMLInputElement).files?.[0])}
      />
      <label class="button secondary" for={id}>
        {t('media.chooseFile')}
      </label>
      <div aria-live="polite">
        {progress && (
          <p>
            <label for={`${id}-progress`}>{t('media.uploading', { name: progress.name })}</label> <progress id={`${id}-progress`} max={1} value={progress.fraction} />
          </p>
        )}
      </div>
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
