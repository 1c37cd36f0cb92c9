/** @jsxImportSource preact */
/// <reference lib="dom" />
import { useEffect, useState } from 'preact/hooks';
import { forgetKey, saveKey, storedKey, whenKeyRefused } from './api.js';
import { ListView } from './list-view.js';
import { PendingView } from './pending-tables.js';
import { listOf, parseRoute, type Route } from './route.js';
import { RunView } from './run-view.js';
import { TransactionView } from './transaction-view.js';
import { WorkflowView } from './workflow-view.js';

function KeyForm({ refused, onKey }: { refused: boolean; onKey: (key: string) => void }) {
  const [key, setKey] = useState('');
  return (
    <form
      class="key-form card"
      onSubmit={(e) => {
        e.preventDefault();
        if (key.trim() !== '') onKey(key.trim());
      }}
    >
      <h2>Tidings activity</h2>
      <p>The page reads the API with your API key. It is kept in this tab only, until it closes.</p>
      {refused && <p class="problem" role="alert">That API key was refused.</p>}
      <label>
        API key
        <input id="api-key" type="password" autocomplete="off" value={key} onInput={(e) => setKey((e.currentTarget as HTMLInputElement).value)} />
      </label>
      <button type="submit">Open</button>
    </form>
  );
}

function View({ route }: { route: Route }) {
  switch (route.view) {
    case 'list':
      return <ListView filters={route.filters} page={route.page} />;
    case 'transaction':
      return <TransactionView transactionId={route.transactionId} />;
    case 'run':
      return <RunView transactionId={route.transactionId} subscriberId={route.subscriberId} />;
    case 'pending':
      return <PendingView />;
    case 'workflow':
      return <WorkflowView workflowId={route.workflowId} />;
  }
}

export function App() {
  const [key, setKey] = useState(storedKey());
  const [refused, setRefused] = useState(false);
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  useEffect(() => {
    const onHash = () => setRoute(parseRoute(location.hash));
    addEventListener('hashchange', onHash);
    whenKeyRefused(() => {
      forgetKey();
      setKey(null);
      setRefused(true);
    });
    document.body.dataset['ready'] = 'true';
    return () => removeEventListener('hashchange', onHash);
  }, []);
  if (key === null) {
    return (
      <KeyForm
        refused={refused}
        onKey={(given) => {
          saveKey(given);
          setRefused(false);
          setKey(given);
        }}
      />
    );
  }
  const at = route.view;
  return (
    <>
      <header class="top">
        <strong>Tidings activity</strong>
        <nav>
          <a href={listOf({})} class={at === 'list' ? 'here' : ''}>Notifications</a>
          <a href={listOf({ status: 'error' })}>Failed</a>
          <a href="#/pending" class={at === 'pending' ? 'here' : ''}>Pending</a>
          <button
            type="button"
            class="link sign-out"
            onClick={() => {
              forgetKey();
              setKey(null);
            }}
          >
            Forget key
          </button>
        </nav>
      </header>
      <main key={location.hash}>
        <View route={route} />
      </main>
    </>
  );
}
