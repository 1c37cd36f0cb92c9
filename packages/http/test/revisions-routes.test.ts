import { describe, expect, it } from 'vitest';
import { setup } from './helpers.js';

const workflow = (identifier: string, content: string) => ({ name: identifier, triggers: [{ identifier }], steps: [{ template: { type: 'in_app' as const, content } }] });

describe('workflow revisions over HTTP', () => {
  it('a change through POST /v1/workflows and Novu\'s /v2/workflows is a revision by "api"; history, one revision, a diff and a rollback are routes; bad input is a 422 naming the field', async () => {
    const { request, a } = await setup();
    expect((await request('POST', '/v1/workflows', workflow('hello', 'one'))).status).toBe(201);
    expect((await request('POST', '/v1/workflows', workflow('hello', 'one'))).status).toBe(201);
    expect((await request('PATCH', '/v2/workflows/hello', { name: 'Hello' })).status).toBe(200);
    await a.workflows.upsert(workflow('hello', 'two'));
    const history = (await (await request('GET', '/v1/workflows/hello/revisions')).json()).data as { revision: number; by: string }[];
    expect(history.map((r) => [r.revision, r.by])).toEqual([
      [3, 'code'],
      [2, 'api'],
      [1, 'api'],
    ]);
    expect((await (await request('GET', '/v1/workflows/hello/revisions?limit=1')).json()).data).toHaveLength(1);
    expect((await (await request('GET', '/v1/workflows/hello/revisions/1')).json()).data.workflow.name).toBe('hello');
    expect((await request('GET', '/v1/workflows/hello/revisions/9')).status).toBe(404);
    const diff = (await (await request('GET', '/v1/workflows/hello/diff?from=2&to=3')).json()).data as { lines: string[] };
    expect(diff.lines).toContain('~ name: "Hello" → "hello"');
    expect(diff.lines.some((l) => l.endsWith('template.content: "one" → "two"'))).toBe(true);
    const rolled = await request('POST', '/v1/workflows/hello/rollback', { revision: 1 });
    expect(rolled.status).toBe(200);
    expect((await rolled.json()).data).toMatchObject({ name: 'hello', revision: 4 });
    expect((await a.workflows.history('hello'))[0]).toMatchObject({ revision: 4, by: 'api', restores: 1 });

    for (const [method, path, body, field] of [
      ['GET', '/v1/workflows/hello/revisions?limit=many', undefined, 'limit'],
      ['GET', '/v1/workflows/hello/diff?from=1', undefined, 'to'],
      ['GET', '/v1/workflows/hello/revisions/x', undefined, 'revision'],
      ['POST', '/v1/workflows/hello/rollback', { revision: 'first' }, 'revision'],
      ['POST', '/v1/workflows/hello/rollback', {}, 'revision'],
    ] as const) {
      const answer = await request(method, path, body);
      expect(answer.status, path).toBe(422);
      expect(JSON.stringify(await answer.json()), path).toContain(field);
    }
    expect(await a.workflows.history('hello')).toHaveLength(4);
  });

  it('POST /v1/workflow-files/plan changes nothing; /apply applies every file in one go, a second time is a no-op, and one bad file is a 422 naming it with nothing applied', async () => {
    const { request, a } = await setup();
    const files = [
      { file: 'hello.json', workflow: workflow('hello', 'one') },
      { file: 'bye.json', workflow: workflow('bye', 'later') },
    ];
    const plan = (await (await request('POST', '/v1/workflow-files/plan', { files })).json()).data;
    expect(plan.plan.added.map((x: { identifier: string }) => x.identifier)).toEqual(['hello', 'bye']);
    expect(await a.workflows.get('hello')).toBeNull();
    expect((await (await request('POST', '/v1/workflow-files/apply', { files })).json()).data.applied).toBe(true);
    expect((await a.workflows.history('bye'))[0]!.by).toBe('api');
    expect((await (await request('POST', '/v1/workflow-files/apply', { files })).json()).data).toMatchObject({ applied: false, lines: [expect.stringMatching(/^No changes: \d+ workflows as stored\.$/)] });
    const bad = await request('POST', '/v1/workflow-files/apply', { files: [{ file: 'hello.json', workflow: workflow('hello', 'two') }, { file: 'bad.json', workflow: { ...workflow('bad', 'x'), steps: [{ template: { type: 'fax' } }] } }] });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(await bad.json())).toContain('bad.json:steps[0].template.type');
    expect((await a.workflows.get('hello'))?.steps[0]?.template.content).toBe('one');
    const named = await request('POST', '/v1/workflow-files/apply', { files, by: 'me' });
    expect(named.status).toBe(422);
  });
});
