/** Entry point: the styles and the app, rendered into #app. */
import { render } from 'preact';
import './styles.css';
import { App } from './app';

render(<App />, document.getElementById('app')!);
