/** Entry point: the styles and the app, rendered into #app. */
import { render } from 'preact';
// The shared styles, one file per part of the screen, in cascade order (narrow.css overrides the rules
// before it); a lazily loaded component's own styles are imported by it and come after these.
import './styles/base.css';
import './styles/layout.css';
import './styles/forms.css';
import './styles/states.css';
import './styles/tables.css';
import './styles/overlays.css';
import './styles/dashboard.css';
import './styles/editor.css';
import './styles/events-list.css';
import './styles/narrow.css';
import { App } from './app';

render(<App />, document.getElementById('app')!);
