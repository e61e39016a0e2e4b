/**
 * The Media screen: the media library (`calendar/admin/v1/media`): upload (file picker, drag and
 * drop, paste), search, each image with its preview, size, and alt text to edit in place, and
 * delete (events showing it then show none). Authors and up, as uploads are; the server refuses
 * changes to another author's image unless the user is an editor or administrator.
 */
import { useState } from 'preact/hooks';
import { api } from '../../lib/api';
import { formatDate, t } from '../../lib/i18n';
import { query, setQuery } from '../../lib/router';
import type { ScreenDef } from '../../lib/screens';
import { useApi } from '../../components/useApi';
import { PageHeader } from '../../components/PageHeader';
import { DataTable, type Column } from '../../components/DataTable';
import { TextField } from '../../components/Fields';
import { ErrorState } from '../../components/States';
import { confirmDialog } from '../../components/ConfirmDialog';
import { toast } from '../../components/Toast';
import { MEDIA_NS, MediaUpload, previewOf, type MediaItem } from '../MediaUpload';

const PER_PAGE = 20;

const sizeText = (bytes: number) => (bytes >= 1048576 ? `${(bytes / 1048576).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} kB`);

/** One image's alt text, edited in place and saved with its own button. */
function AltEditor({ item, onSaved }: { item: MediaItem; onSaved: () => void }) {
  const [alt, setAlt] = useState(item.alt_text);
  const [saving, setSaving] = useState(false);
  const save = async () => {
    setSaving(true);
    try {
      await api(`${MEDIA_NS}/${item.id}`, { method: 'PATCH', body: { alt_text: alt } });
      toast(t('media.altSaved'));
      onSaved();
    } catch (e) {
      toast((e as Error).message, 'error');
    } finally {
      setSaving(false);
    }
  };
  return (
    <div class="media-alt">
      <TextField id={`alt-${item.id}`} label={t('media.altOf', { name: item.filename })} name={`alt-${item.id}`} value={alt} onInput={setAlt} />
      <button type="button" class="secondary" disabled={saving || alt === item.alt_text} onClick={() => void save()}>
        {t('media.saveAlt')}
      </button>
    </div>
  );
}

function MediaLibrary() {
  const q = query.value;
  const page = Math.max(1, Number(q.get('page') ?? 1) || 1);
  const search = q.get('search') ?? '';
  const [typed, setTyped] = useState(search);
  const list = useApi<MediaItem[]>(MEDIA_NS, { page, per_page: PER_PAGE, search: search || undefined });
  const total = Number(list.headers?.get('x-wp-total') ?? 0);
  const remove = async (item: MediaItem) => {
    if (!(await confirmDialog({ title: t('media.delete'), message: t('media.deleteQ', { name: item.filename }), confirm: t('media.delete'), danger: true }))) return;
    try {
      await api(`${MEDIA_NS}/${item.id}`, { method: 'DELETE' });
      toast(t('media.deleted'));
      list.reload();
    } catch (e) {
      toast((e as Error).message, 'error');
    }
  };
  const columns: Column<MediaItem>[] = [
    {
      key: 'preview',
      label: t('media.preview'),
      render: (i) => <img class="media-thumb" src={previewOf(i, 150)} alt="" width={64} height={64} loading="lazy" />,
    },
    {
      key: 'file',
      label: t('media.file'),
      render: (i) => (
        <>
          <a href={i.url}>{i.filename}</a>
          <br />
          <span class="help">
            {i.width} × {i.height} · {sizeText(i.filesize)} · {formatDate(`${i.date_gmt.replace(' ', 'T')}Z`)}
          </span>
        </>
      ),
    },
    { key: 'alt', label: t('media.alt'), render: (i) => <AltEditor key={`${i.id}:${i.alt_text}`} item={i} onSaved={list.reload} /> },
    {
      key: 'actions',
      label: t('media.actions'),
      render: (i) => (
        <button type="button" class="danger" onClick={() => void remove(i)} aria-label={t('media.deleteNamed', { name: i.filename })}>
          {t('media.delete')}
        </button>
      ),
    },
  ];
  return (
    <>
      <PageHeader title={t('media.title')} />
      <section aria-labelledby="media-upload-heading">
        <h2 id="media-upload-heading">{t('media.upload')}</h2>
        <MediaUpload
          id="media-library-file"
          onUploaded={(item) => {
            toast(t('media.uploaded', { name: item.filename }));
            setQuery({ page: undefined, search: undefined });
            list.reload();
          }}
        />
      </section>
      <form
        role="search"
        class="filters"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ search: typed.trim() || undefined, page: undefined });
        }}
      >
        <TextField label={t('media.search')} name="search" type="search" value={typed} onInput={setTyped} />
        <button type="submit" class="secondary">
          {t('media.find')}
        </button>
      </form>
      {list.error ? (
        <ErrorState error={list.error} onRetry={list.reload} />
      ) : (
        <DataTable
          caption={t('media.title')}
          columns={columns}
          rows={list.data}
          loading={list.loading}
          empty={t('media.empty')}
          paging={{ page, total, totalPages: Math.ceil(total / PER_PAGE), onPage: (p) => setQuery({ page: p }) }}
        />
      )}
    </>
  );
}

export const screens: ScreenDef[] = [{ path: '/media', nav: { labelKey: 'media.nav', group: 'content', order: 60 }, roles: ['administrator', 'editor', 'author'], component: MediaLibrary }];
