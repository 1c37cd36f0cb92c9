/**
 * `Client` from `@tidings/framework`: a Novu bridge file that constructs one beside its workflows
 * loads and runs after the one-line port; the client keeps Novu's options and serves nothing.
 */
import { fileURLToPath } from 'node:url';
import { isCodeWorkflow } from '@tidings/core/internal';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, workflow } from '../src/index.js';
import { loadWorkflowsModule } from '../../cli/src/workflows-module.js';
import { backends, engines } from './engines.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/novu-bridge.ts', import.meta.url));

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('Client', () => {
  it('takes Novu’s options and keeps them, with Novu’s defaults from the environment', () => {
    const given = new Client({ apiUrl: 'https://eu.api.novu.co', secretKey: 'sk_1', strictAuthentication: false, verbose: false, logger: console });
    expect([given.apiUrl, given.secretKey, given.strictAuthentication, given.verbose]).toEqual(['https://eu.api.novu.co', 'sk_1', false, false]);

    vi.stubEnv('NOVU_API_URL', 'http://localhost:4000');
    vi.stubEnv('NOVU_SECRET_KEY', 'sk_env');
    vi.stubEnv('NODE_ENV', 'production');
    const fromEnv = new Client();
    expect([fromEnv.apiUrl, fromEnv.secretKey, fromEnv.strictAuthentication, fromEnv.verbose]).toEqual(['http://localhost:4000', 'sk_env', true, false]);
    vi.stubEnv('NOVU_STRICT_AUTHENTICATION_ENABLED', 'false');
    expect(new Client({}).strictAuthentication).toBe(false);
    expect(new Client({ strictAuthentication: true }).strictAuthentication).toBe(true);
  });

  it('without a secret key or an API URL it still constructs (nothing is served or sent), as Novu’s does', () => {
    vi.stubEnv('NOVU_SECRET_KEY', '');
    vi.stubEnv('NOVU_API_KEY', '');
    vi.stubEnv('NOVU_API_URL', '');
    const client = new Client({ secretKey: undefined });
    expect([client.secretKey, client.apiUrl]).toEqual(['', 'https://api.novu.co']);
  });

  it('addWorkflows keeps each workflow once (the first of an id), and discover / healthCheck list them with their steps', async () => {
    const client = new Client({ strictAuthentication: false });
    const first = workflow('w', async ({ step }) => {
      await step.inApp('a', () => ({ body: 'a' }));
      await step.delay('wait', () => ({ amount: 1, unit: 'hours' }));
    });
    const again = workflow('w', async ({ step }) => {
      await step.sms('other', () => ({ body: 'b' }));
    });
    await client.addWorkflows([first, again]);
    expect(client.discover()).toEqual({ workflows: [{ workflowId: 'w', steps: [{ stepId: 'a', type: 'in_app' }, { stepId: 'wait', type: 'delay' }] }] });
    expect(client.healthCheck()).toMatchObject({ status: 'ok', discovered: { workflows: 1, steps: 2 } });
    expect(client.workflows).toEqual([first]);
    await expect(client.addWorkflows([{} as never])).rejects.toThrow('workflows[0] is not a workflow');
  });

  it('executeWorkflow rejects, saying workflows run through the engine', async () => {
    await expect(new Client().executeWorkflow({})).rejects.toThrow('createTidings({ workflows })');
  });
});

describe.each(backends('tidings_client').filter((b) => !b.skip))('a Novu bridge file after the one-line port ($name)', (backend) => {
  const engine = engines(backend);

  it('loads (importing Client beside workflow and constructing one) and its workflows run', async () => {
    vi.stubEnv('NOVU_SECRET_KEY', 'sk_test');
    const bridge = await import('./fixtures/novu-bridge.js');
    expect(bridge.client).toBeInstanceOf(Client);
    expect(bridge.client.secretKey).toBe('sk_test');
    expect(isCodeWorkflow(bridge.client)).toBe(false);

    const { tidings, sent, drain } = await engine(bridge.workflows);
    const answer = await tidings.trigger({ name: 'new-comment', to: 'ada', payload: { postId: 'p1', postTitle: 'Hello', author: 'Grace', text: 'Nice post' } });
    expect(answer.status).toBe('processed');
    await drain();
    const [note] = (await tidings.messages.feed('ada')).items;
    expect([note?.subject, note?.content, note?.cta.data?.url, note?.data]).toEqual(['New comment on Hello', 'Grace wrote: Nice post', '/posts/p1', { postId: 'p1' }]);
    expect(sent).toEqual([{ channel: 'email', to: 'ada@example.com', subject: 'Hi Ada, Grace commented', content: expect.stringContaining('Nice post') }]);
  });
});

describe('tidings serve --workflows with a bridge file', () => {
  it('loads its workflows and passes over the Client export', async () => {
    const loaded = await loadWorkflowsModule(FIXTURE);
    expect(loaded.map((w) => w.id)).toEqual(['new-comment']);
  });
});
