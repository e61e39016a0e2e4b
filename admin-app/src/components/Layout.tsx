/**
 * The frame of every screen: a skip link, the header (site name, the calendar switcher, the menu, the language selector,
 * the account page and sign-out), the navigation grouped content / people / system with only the
 * screens the user's role may see, the main region (focused after each navigation, so a screen
 * reader starts at the new screen), the toasts and the dialog host.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { LANGUAGES, locale, setLocale, t } from '../lib/i18n';
import { path } from '../lib/router';
import { NAV_GROUPS, mayOpen, type ScreenDef } from '../lib/screens';
import { boot, currentUser } from '../lib/session';
import { CalendarSwitcher } from './CalendarSwitcher';
import { ConfirmHost } from './ConfirmDialog';
import { Link } from './Link';
import { Toasts } from './Toast';

export function Layout({ screens, children }: { screens: ScreenDef[]; children: ComponentChildren }) {
  const [menuOpen, setMenuOpen] = useState(false);
  const main = useRef<HTMLElement>(null);
  const first = useRef(true);
  const current = path.value;
  useEffect(() => {
    setMenuOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    main.current?.focus();
  }, [current]);
  const visible = screens.filter((s) => s.nav && mayOpen(s));
  const active = (p: string) => (p === '/' ? current === '/' : current === p || current.startsWith(p + '/'));
  return (
    <>
      <a class="skip" href="#main">
        {t('layout.skip')}
      </a>
      <header class="top">
        <div class="brand">
          <Link to="/">{boot.siteName || t('layout.admin')}</Link>
        </div>
        <CalendarSwitcher />
        <button type="button" class="menu-toggle secondary" aria-expanded={menuOpen} aria-controls="site-nav" onClick={() => setMenuOpen(!menuOpen)}>
          {t('layout.menu')}
        </button>
        <div class="tools">
          <label class="lang">
            <span class="sr-only">{t('layout.language')}</span>
            <select value={locale.value} onChange={(e) => setLocale((e.target as HTMLSelectElement).value)}>
              {LANGUAGES.map((l) => (
                <option key={l.code} value={l.code} lang={l.code}>
                  {l.name}
                </option>
              ))}
            </select>
          </label>
          <Link to="/my-account" class="account">
            {t('layout.account', { name: currentUser.value.name })}
          </Link>
          <form method="post" action={`${boot.adminPath}/sign-out`} class="inline">
            <input type="hidden" name="_wpnonce" value={boot.formNonce} />
            <button type="submit" class="link">
              {t('layout.signOut')}
            </button>
          </form>
        </div>
      </header>
      <div class="frame">
        <nav id="site-nav" class={`side${menuOpen ? ' open' : ''}`} aria-label={t('layout.nav')}>
          {NAV_GROUPS.map((group) => {
            const items = visible.filter((s) => s.nav!.group === group).sort((a, b) => a.nav!.order - b.nav!.order);
            if (items.length === 0) return null;
            return (
              <div key={group} class="nav-group">
                <h2 id={`nav-${group}`}>{t(`nav.group.${group}`)}</h2>
                <ul aria-labelledby={`nav-${group}`}>
                  {items.map((s) => (
                    <li key={s.path}>
                      <Link to={s.path} aria-current={active(s.path) ? 'page' : undefined}>
                        {t(s.nav!.labelKey)}
                      </Link>
                    </li>
                  ))}
                </ul>
              </div>
            );
          })}
        </nav>
        <main id="main" ref={main} tabIndex={-1}>
          {/* At the top of the main region, in the flow: a toast never covers a control. */}
          <Toasts />
          {children}
        </main>
      </div>
      <ConfirmHost />
    </>
  );
}
