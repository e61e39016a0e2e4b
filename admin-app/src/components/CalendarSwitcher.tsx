/**
 * The calendar switcher, in the top bar: which calendar the app is in, and links to the admin app
 * of every other calendar the user may work in (`GET calendar/network/v1/calendars`: a network
 * administrator's every calendar, anyone else's the calendars they have a role in). Shown only when
 * there is more than one to be in. A disclosure (`<details>`) of plain links: moving to another
 * calendar loads its admin app (`{its URL}/admin/`), never on a mere change of a control.
 */
import { useApi } from './useApi';
import { t } from '../lib/i18n';
import { ALL_ROLES } from '../lib/screens';
import { boot } from '../lib/session';

export interface CalendarEntry {
  id: number;
  slug: string;
  name: string;
  status: 'active' | 'suspended';
  url: string;
  default: boolean;
  role: string;
}

/** ADMIN_PATH without the calendar prefix this app was served under (`/c/north/admin` → `/admin`). */
const adminPathOfService = boot.adminPath.replace(/^\/c\/[^/]+(?=\/)/, '');

/** Where a calendar's admin app is. */
export function adminUrlOf(calendar: Pick<CalendarEntry, 'url'>): string {
  return `${calendar.url.replace(/\/+$/, '')}${adminPathOfService}/`;
}

/** Whether a calendar is the one this app is in (by its site URL, which the server gave). */
export const isCurrent = (calendar: Pick<CalendarEntry, 'url'>): boolean => calendar.url.replace(/\/+$/, '') === boot.siteUrl.replace(/\/+$/, '');

export function CalendarSwitcher() {
  const list = useApi<CalendarEntry[]>('calendar/network/v1/calendars', { per_page: 100 });
  if (!list.data) return null;
  // The calendars one may work in here (a role that opens the app), and the current one whatever its role.
  const enterable = list.data.filter((c) => isCurrent(c) || (c.status === 'active' && ALL_ROLES.includes(c.role)));
  if (enterable.length < 2) return null;
  const current = enterable.find(isCurrent);
  return (
    <details class="calendar-switch">
      <summary>
        <span class="sr-only">{t('calendars.switch.label')} </span>
        {current ? current.name : t('calendars.switch.choose')}
      </summary>
      <nav aria-label={t('calendars.switch.label')}>
        <ul>
          {enterable.map((c) => (
            <li key={c.id}>
              <a href={adminUrlOf(c)} aria-current={isCurrent(c) ? 'page' : undefined}>
                {c.name}
                <span class="calendar-role"> ({t(`calendars.role.${c.role || 'none'}`)})</span>
              </a>
            </li>
          ))}
        </ul>
      </nav>
    </details>
  );
}
