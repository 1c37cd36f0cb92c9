/** @jsxImportSource preact */
/// <reference lib="dom" />
// The activity page (`/activity`): notifications, each subscriber's run step by step, pending jobs and
// digests, retry and cancel — over the documented HTTP routes. Bundled by scripts/build-activity.mjs.
import { render } from 'preact';
import { App } from './app.js';
import './activity.css';

render(<App />, document.getElementById('app')!);
