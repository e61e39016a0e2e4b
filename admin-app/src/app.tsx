/** The app: the layout around the screen the path names, if the user's role may see it. */
import { useEffect } from 'preact/hooks';
import { Layout } from './components/Layout';
import { PageHeader } from './components/PageHeader';
import { Link } from './components/Link';
import { Loading } from './components/States';
import { t } from './lib/i18n';
import { path } from './lib/router';
import { findScreen, mayOpen } from './lib/screens';
import { coreScreens, loadPlugins, pluginScreens, pluginsLoaded } from './screens';

export function App() {
  useEffect(() => {
    void loadPlugins();
  }, []);
  const screens = [...coreScreens, ...pluginScreens.value];
  const found = findScreen(screens, path.value);
  let body;
  if (found && mayOpen(found.screen)) {
    const C = found.screen.component;
    body = <C key={path.value} params={found.params} />;
  } else if (!found && !pluginsLoaded.value) body = <Loading />;
  else
    body = (
      <>
        <PageHeader title={found ? t('app.forbidden') : t('app.notFound')} />
        <p>{found ? t('app.forbiddenText') : t('app.notFoundText')}</p>
        <p>
          <Link to="/">{t('app.home')}</Link>
        </p>
      </>
    );
  return <Layout screens={screens}>{body}</Layout>;
}
