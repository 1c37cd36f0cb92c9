/** @jsxImportSource preact */
/// <reference lib="dom" />
import { api, type RevisionDiff, type WorkflowRevision } from './api.js';
import { useLoad } from './load.js';
import { listOf } from './route.js';
import { ActionButton, Problem, Time } from './widgets.js';

/** Revisions the page shows, newest first. */
const SHOWN = 20;

/** A diff's lines, each coloured by what it says: `+` added, `-` removed, `~` changed (a text's lines indented below). */
export function DiffLines({ lines }: { lines: readonly string[] }) {
  if (lines.length === 0) return <p class="muted">No change.</p>;
  const tone = (line: string) => ({ '+': 'added', '-': 'removed', '~': 'changed' })[line.trimStart()[0] ?? ''] ?? '';
  return (
    <pre class="diff">
      {lines.map((line) => (
        <span class={`line ${tone(line)}`}>{`${line}\n`}</span>
      ))}
    </pre>
  );
}

function RevisionCard({ revision, diff, current, onRollback }: { revision: WorkflowRevision; diff: RevisionDiff | undefined; current: boolean; onRollback: () => Promise<void> }) {
  return (
    <li class="revision card" data-revision={revision.revision}>
      <h4>
        Revision {revision.revision}
        {current && <span class="badge ok">current</span>} · by <span class="by">{revision.by}</span> · <Time at={revision.at} />
        {revision.restores !== undefined && <span class="restores"> · restores revision {revision.restores}</span>}
      </h4>
      {revision.revision === 1 ? <p class="muted">The first revision.</p> : diff ? <DiffLines lines={diff.lines} /> : <p class="muted">Its diff is past the revisions shown.</p>}
      <div class="buttons">
        {!current && <ActionButton class="rollback" label={`Roll back to revision ${revision.revision}`} confirm={`Make revision ${revision.revision} current again?`} run={onRollback} />}
      </div>
    </li>
  );
}

/** A stored workflow's revisions, newest first, each with what changed from the one before; roll back to any. */
export function WorkflowView({ workflowId }: { workflowId: string }) {
  const loaded = useLoad(async () => {
    const revisions = await api.history(workflowId, SHOWN);
    const diffs = await Promise.all(revisions.map((r) => (r.revision > 1 ? api.diff(workflowId, r.revision - 1, r.revision) : Promise.resolve(undefined))));
    return { revisions, diffs };
  }, [workflowId]);
  const { value } = loaded;
  const newest = value?.revisions[0];
  return (
    <section class="workflow-view">
      <nav class="crumbs">
        <a href={listOf({})}>Notifications</a> › <span>Workflow {workflowId}</span>
      </nav>
      <Problem text={loaded.error} />
      {value === undefined ? (
        !loaded.error && <p class="muted">Loading…</p>
      ) : (
        <>
          <header class="card summary">
            <h2>{newest?.workflow.name ?? workflowId}</h2>
            <p>
              <code>{newest?.identifier ?? workflowId}</code>
              {newest && <> · revision <strong class="current-revision">{newest.revision}</strong></>} ·{' '}
              <a href={listOf({ workflow: newest?.identifier ?? workflowId })}>its notifications</a>
            </p>
          </header>
          <h3>Revisions</h3>
          {value.revisions.length === 0 ? (
            <p class="muted">No stored revisions: a workflow written in code keeps its history in your repository.</p>
          ) : (
            <ol class="revisions">
              {value.revisions.map((revision, i) => (
                <RevisionCard
                  revision={revision}
                  diff={value.diffs[i]}
                  current={i === 0}
                  onRollback={async () => {
                    await api.rollback(workflowId, revision.revision);
                    loaded.reload();
                  }}
                />
              ))}
            </ol>
          )}
          {value.revisions.length === SHOWN && <p class="muted">The newest {SHOWN} revisions are shown.</p>}
        </>
      )}
    </section>
  );
}
