/** An in-app link: a real `<a href>` (open in a new tab works) that navigates with the router. */
import type { ComponentChildren } from 'preact';
import { href, navigate } from '../lib/router';

export function Link({ to, children, ...rest }: { to: string; children: ComponentChildren; class?: string; id?: string; 'aria-current'?: 'page' | undefined; 'aria-label'?: string }) {
  return (
    <a
      {...rest}
      href={href(to)}
      onClick={(e) => {
        if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
        e.preventDefault();
        navigate(to);
      }}
    >
      {children}
    </a>
  );
}
