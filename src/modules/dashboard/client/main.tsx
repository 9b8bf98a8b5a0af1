/** Entry of the dashboard's bundle: in-app link handling, then the app into #app. */
import { render } from 'preact';
import { App } from './app';
import { interceptLinks } from './router';

interceptLinks(document);
render(<App />, document.getElementById('app')!);
