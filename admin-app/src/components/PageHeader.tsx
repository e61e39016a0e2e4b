/** A screen's title (the page's one `<h1>`, also the document title) and its actions. */
import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { boot } from '../lib/session';

export function PageHeader({ title, children }: { title: string; children?: ComponentChildren }) {
  useEffect(() => {
    document.title = boot.siteName ? `${title} ‹ ${boot.siteName}` : title;
  }, [title]);
  return (
    <div class="page-header">
      <h1 id="page-title" tabIndex={-1}>
        {title}
      </h1>
      {children && <div class="actions">{children}</div>}
    </div>
  );
}
