/** Categories (a tree, with a parent picker) and tags: a sortable list and an editor each. */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, fieldErrors } from '../lib/api';
import { NS, type TermRef } from '../lib/events';
import { t } from '../lib/i18n';
import { navigate, query, setQuery } from '../lib/router';
import { useApi } from '../components/useApi';
import { PageHeader } from '../components/PageHeader';
import { Link } from '../components/Link';
import { DataTable, type Sort } from '../components/DataTable';
import { FormErrors, SelectField, TextArea, TextField } from '../components/Fields';
import { ErrorState, Loading } from '../components/States';
import { toast } from '../components/Toast';
import { confirmDialog } from '../components/ConfirmDialog';

type Kind = 'categories' | 'tags';
type Term = TermRef & { count?: number; description?: string };

/** Terms in tree order (children under their parent), with their depth. */
function treeOrder(terms: Term[]): Array<Term & { depth: number }> {
  const out: Array<Term & { depth: number }> = [];
  const ids = new Set(terms.map((x) => x.id));
  const walk = (parent: number, depth: number) => {
    for (const c of terms.filter((x) => (ids.has(x.parent ?? 0) ? (x.parent ?? 0) : 0) === parent)) {
      out.push({ ...c, depth });
      walk(c.id, depth + 1);
    }
  };
  walk(0, 0);
  return out;
}

function List({ kind }: { kind: Kind }) {
  const q = query.value;
  const page = Number(q.get('page') ?? 1) || 1;
  const sort: Sort = { by: q.get('orderby') ?? 'name', order: q.get('order') === 'desc' ? 'desc' : 'asc' };
  const list = useApi<Record<string, Term[]>>(`${NS}/${kind}`, { page, per_page: 50, hide_empty: false, orderby: sort.by, order: sort.order });
  const rows = list.data ? (list.data[kind] ?? []) : null;
  const ordered = rows && kind === 'categories' && sort.by === 'name' && sort.order === 'asc' ? treeOrder(rows) : rows?.map((r) => ({ ...r, depth: 0 }));
  const single = kind === 'categories' ? 'category' : 'tag';
  return (
    <>
      <PageHeader title={t(`nav.${kind}`)}>
        <Link to={`/${kind}/new`} class="button">
          {t(`${single}.add`)}
        </Link>
      </PageHeader>
      {list.error && !(list.error instanceof ApiProblem && list.error.status === 404) ? <ErrorState error={list.error} onRetry={list.reload} /> : null}
      <DataTable
        caption={t(`nav.${kind}`)}
        columns={[
          {
            key: 'name',
            label: t('common.name'),
            sort: 'name',
            render: (r) => (
              <>
                {'— '.repeat(r.depth)}
                <Link to={`/${kind}/${r.id}`}>{r.name}</Link>
              </>
            ),
          },
          { key: 'slug', label: t('term.slug'), sort: 'slug', optional: true, render: (r) => r.slug },
          { key: 'count', label: t('term.count'), sort: 'count', render: (r) => String(r.count ?? 0) },
        ]}
        rows={ordered ?? (list.error ? [] : null)}
        empty={t(`${single}.empty`)}
        sort={sort}
        onSort={(s) => setQuery({ orderby: s.by, order: s.order, page: undefined })}
        paging={{
          page,
          total: Number(list.headers?.get('x-wp-total') ?? 0),
          totalPages: Number(list.headers?.get('x-wp-totalpages') ?? 0),
          onPage: (p) => setQuery({ page: p === 1 ? undefined : p }),
        }}
      />
    </>
  );
}

function Editor({ kind, id }: { kind: Kind; id: string }) {
  const isNew = id === 'new';
  const single = kind === 'categories' ? 'category' : 'tag';
  const [term, setTerm] = useState<{ name: string; slug: string; description: string; parent: string } | null>(isNew ? { name: '', slug: '', description: '', parent: '0' } : null);
  const [etag, setEtag] = useState<string | undefined>();
  const [error, setError] = useState<unknown>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [formError, setFormError] = useState<string | undefined>();
  const all = useApi<Record<string, Term[]>>(kind === 'categories' ? `${NS}/categories` : null, { per_page: 100, hide_empty: false });
  const load = async () => {
    try {
      const res = await api<Term>(`${NS}/${kind}/${id}`);
      setTerm({ name: res.data.name, slug: res.data.slug, description: res.data.description ?? '', parent: String(res.data.parent ?? 0) });
      setEtag(res.headers.get('etag') ?? undefined);
    } catch (e) {
      setError(e);
    }
  };
  useEffect(() => {
    if (!isNew) void load();
  }, [id]);
  if (error) return <ErrorState error={error} onRetry={() => void load()} />;
  if (!term) return <Loading />;
  const save = async () => {
    setErrors({});
    setFormError(undefined);
    const body: Record<string, unknown> = { name: term.name, description: term.description };
    if (term.slug) body.slug = term.slug;
    if (kind === 'categories') body.parent = Number(term.parent);
    try {
      const res = await api<Term>(isNew ? `${NS}/${kind}` : `${NS}/${kind}/${id}`, { method: 'POST', body, ifMatch: isNew ? undefined : etag });
      toast(t('common.saved'));
      if (isNew) navigate(`/${kind}/${res.data.id}`, { replace: true });
      else await load();
    } catch (e) {
      if (e instanceof ApiProblem && e.status === 412) {
        setFormError(t('editor.conflict'));
        await load();
        return;
      }
      setErrors(fieldErrors(e));
      setFormError(e instanceof Error ? e.message : String(e));
    }
  };
  const remove = async () => {
    if (!(await confirmDialog({ title: t('common.delete'), message: t('term.deleteQ', { name: term.name }), confirm: t('common.delete'), danger: true }))) return;
    try {
      await api(`${NS}/${kind}/${id}`, { method: 'DELETE', query: { force: true } });
      toast(t('term.deleted'));
      navigate(`/${kind}`);
    } catch (e) {
      setFormError(e instanceof Error ? e.message : String(e));
    }
  };
  const parents = (all.data?.categories ?? []).filter((c) => String(c.id) !== id);
  return (
    <>
      <PageHeader title={isNew ? t(`${single}.add`) : term.name}>
        <Link to={`/${kind}`}>{t('common.back')}</Link>
      </PageHeader>
      <FormErrors message={formError} fields={errors} />
      <form
        class="card"
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          void save();
        }}
      >
        <TextField label={t('common.name')} name="name" required value={term.name} onInput={(v) => setTerm({ ...term, name: v })} error={errors.name} />
        <TextField label={t('term.slug')} name="slug" value={term.slug} onInput={(v) => setTerm({ ...term, slug: v })} error={errors.slug} />
        {kind === 'categories' && (
          <SelectField
            label={t('term.parent')}
            name="parent"
            value={term.parent}
            onChange={(v) => setTerm({ ...term, parent: v })}
            options={[{ value: '0', label: t('common.none') }, ...treeOrder(parents).map((c) => ({ value: String(c.id), label: `${'— '.repeat(c.depth)}${c.name}` }))]}
            error={errors.parent}
          />
        )}
        <TextArea label={t('term.description')} name="description" value={term.description} onInput={(v) => setTerm({ ...term, description: v })} error={errors.description} />
        <div class="actions">
          <button type="submit">{t('common.save')}</button>
          {!isNew && (
            <button type="button" class="danger" onClick={() => void remove()}>
              {t('common.delete')}
            </button>
          )}
        </div>
      </form>
    </>
  );
}

export const CategoriesList = () => <List kind="categories" />;
export const TagsList = () => <List kind="tags" />;
export const CategoryEditor = ({ params }: { params: Record<string, string> }) => <Editor kind="categories" id={params.id!} />;
export const TagEditor = ({ params }: { params: Record<string, string> }) => <Editor kind="tags" id={params.id!} />;
