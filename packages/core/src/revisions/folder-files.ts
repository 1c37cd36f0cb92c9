import type { FieldIssue } from '../errors.js';
import type { Layout, Partial, Step, StepVariant, TranslationCatalog, Workflow } from '../schemas/index.js';
import type { RevisionedKind } from './kinds.js';

/** Members a workflow file leaves out: the server makes them, per environment, and `upsert` ignores them. */
const SERVER_MADE = ['_id', 'identifier', '_organizationId', '_environmentId', '_creatorId', 'deleted', 'deletedAt', 'deletedBy', 'createdAt', 'updatedAt', 'revision'] as const;

/** A step's or variant's own id is kept (diffs match steps by it); its template id only when it is another. */
function fileStep<T extends Step | StepVariant>(step: T): T {
  const { _templateId, ...rest } = step;
  return (_templateId === undefined || _templateId === step._id ? rest : step) as T;
}

/**
 * A stored workflow as a file keeps it: what `upsert` (and `apply`) takes back to the same workflow,
 * in any environment. Server-made members are left out, as are a generated slug and the default
 * group; steps keep their ids. Pure.
 */
export function workflowFile(workflow: Workflow): Record<string, unknown> {
  const file: Record<string, unknown> = { ...workflow, steps: workflow.steps.map((s) => ({ ...fileStep(s), variants: s.variants.map(fileStep) })) };
  for (const member of SERVER_MADE) delete file[member];
  if (workflow.slug.endsWith(`_wf_${workflow._id}`)) delete file['slug'];
  if (workflow._notificationGroupId === 'general') delete file['_notificationGroupId'];
  return file;
}

/** File names for workflows (`<identifier>.json`, other characters as `_`), each distinct. Pure. */
export function workflowFileNames(identifiers: readonly string[]): string[] {
  const taken = new Set<string>();
  return identifiers.map((identifier) => {
    const base = identifier.replace(/[^\w.-]/g, '_');
    let name = `${base}.json`;
    for (let n = 2; taken.has(name.toLowerCase()); n++) name = `${base}-${n}.json`;
    taken.add(name.toLowerCase());
    return name;
  });
}

/** A file of a folder: its path inside the folder (`/` between folders) and its text. */
export interface FolderFile {
  readonly file: string;
  readonly text: string;
}

/**
 * Where each kind lives in a folder: workflows are its `*.json` files; layouts are
 * `layouts/<identifier>.html` or `.mjml` (the content) with `layouts/<identifier>.json` (the other
 * members); partials `partials/<identifier>.html` or `.liquid`; catalogs `translations/<locale>.json`,
 * and a tenant's `translations/<tenant>/<locale>.json`.
 */
const PLACES: readonly (readonly [RevisionedKind, RegExp])[] = [
  ['workflows', /^([^/]+)\.json$/],
  ['layouts', /^layouts\/([^/]+)\.(json|html|mjml)$/],
  ['partials', /^partials\/([^/]+)\.(html|liquid)$/],
  ['translations', /^translations\/(?:([^/]+)\/)?([^/]+)\.json$/],
];

/** The kind a folder's file holds, by its path; null for a file that is none of them. */
export function folderKindOf(file: string): RevisionedKind | null {
  return PLACES.find(([, pattern]) => pattern.test(file))?.[0] ?? null;
}

/** A name as a path segment: characters other than letters, digits, `-`, `_`, `.` written `%XX`, and never `.` or `..`. */
const segment = (name: string) => encodeURIComponent(name).replace(/[!'()*~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`).replace(/^\.\.?$/, (dots) => dots.replace(/\./g, '%2E'));

/**
 * Everything stored as the files of a folder, each kind where `folderKindOf` looks for it: workflows
 * as `workflowFile` makes them, a layout's content in a file of its own (`.html` or `.mjml`) so it
 * reads and diffs as what it is, catalogs as their entries. JSON is indented by two spaces. Pure.
 */
export function folderFiles(stored: { readonly workflows: readonly Workflow[]; readonly layouts: readonly Layout[]; readonly partials: readonly Partial[]; readonly catalogs: readonly TranslationCatalog[] }): FolderFile[] {
  const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
  const names = workflowFileNames(stored.workflows.map((w) => w.identifier));
  return [
    ...stored.workflows.map((w, i) => ({ file: names[i]!, text: json(workflowFile(w)) })),
    ...stored.layouts.flatMap((l) => [
      { file: `layouts/${segment(l.identifier)}.json`, text: json({ name: l.name, isDefault: l.isDefault }) },
      { file: `layouts/${segment(l.identifier)}.${l.type}`, text: l.content },
    ]),
    ...stored.partials.map((p) => ({ file: `partials/${segment(p.identifier)}.html`, text: p.content })),
    ...stored.catalogs.map((c) => ({ file: `translations/${c.tenant === null ? '' : `${segment(c.tenant)}/`}${segment(c.locale)}.json`, text: json(c.entries) })),
  ];
}

/**
 * An input read from a folder's files, to check as its kind's `upsert` takes it. `place` names where
 * an issue at a path of the input is: the file and the path in it (`layouts/main.html:content`).
 */
export interface FolderInput {
  readonly kind: RevisionedKind;
  /** The file the plan names it by (a layout's content file when it has one). */
  readonly file: string;
  readonly input: unknown;
  readonly place: (path: string) => string;
}

const at = (file: string) => (path: string) => (path === '' ? file : `${file}:${path}`);

/** A file's JSON, or the issue naming it. */
function parsed(file: string, text: string, issues: FieldIssue[]): { value: unknown } | null {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (error) {
    issues.push({ path: file, message: `is not JSON: ${(error as Error).message}` });
    return null;
  }
}

function decoded(file: string, name: string, issues: FieldIssue[]): string | null {
  try {
    return decodeURIComponent(name);
  } catch {
    issues.push({ path: file, message: 'its name is not a valid %-encoded name' });
    return null;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The inputs a folder's files make, each named by its file, and the issues of files that make none:
 * a file no kind lives at, one that is not JSON, a layout's content given twice. A layout's two files
 * make one input (identifier from the file name, content from its `.html` or `.mjml` file, its type
 * from that file's ending). Pure; nothing is checked against a schema here.
 */
export function readFolder(files: readonly FolderFile[]): { inputs: FolderInput[]; issues: FieldIssue[] } {
  const inputs: FolderInput[] = [];
  const issues: FieldIssue[] = [];
  const layouts = new Map<string, { json?: { file: string; value: unknown }; content?: { file: string; text: string; type: 'html' | 'mjml' } }>();
  for (const { file, text } of files) {
    const kind = folderKindOf(file);
    const match = kind && PLACES.find(([k]) => k === kind)![1].exec(file)!;
    if (!kind || !match) {
      issues.push({ path: file, message: 'is no file of a workflows folder: workflows are <name>.json, the others are in layouts/, partials/ and translations/' });
      continue;
    }
    if (kind === 'workflows') {
      const json = parsed(file, text, issues);
      if (json) inputs.push({ kind, file, input: json.value, place: at(file) });
    } else if (kind === 'layouts') {
      const identifier = decoded(file, match[1]!, issues);
      if (identifier === null) continue;
      const layout = layouts.get(identifier) ?? {};
      layouts.set(identifier, layout);
      if (match[2] === 'json') {
        const json = parsed(file, text, issues);
        if (json) layout.json = { file, value: json.value };
      } else if (layout.content) issues.push({ path: file, message: `the layout's content is also in ${layout.content.file}` });
      else layout.content = { file, text, type: match[2] as 'html' | 'mjml' };
    } else if (kind === 'partials') {
      const identifier = decoded(file, match[1]!, issues);
      if (identifier !== null) inputs.push({ kind, file, input: { identifier, content: text }, place: at(file) });
    } else {
      const tenant = match[1] === undefined ? undefined : decoded(file, match[1], issues);
      const locale = decoded(file, match[2]!, issues);
      const json = parsed(file, text, issues);
      if (tenant === null || locale === null || !json) continue;
      // The file holds the entries; an issue in them is named at its place in the file.
      const place = (path: string) => (path === 'entries' ? file : path.startsWith('entries.') ? `${file}:${path.slice('entries.'.length)}` : `${file}:${path}`);
      inputs.push({ kind, file, input: { locale, entries: json.value, ...(tenant !== undefined && { tenant }) }, place });
    }
  }
  for (const [identifier, { json, content }] of layouts) {
    const members = json?.value ?? {};
    const file = content?.file ?? json!.file;
    if (!isObject(members)) {
      issues.push({ path: json!.file, message: 'must be a JSON object of the layout\'s members (name, isDefault)' });
      continue;
    }
    if (json && 'identifier' in members && members['identifier'] !== identifier) issues.push({ path: `${json.file}:identifier`, message: `must be the file's name, "${identifier}"` });
    if (json && content && 'content' in members) issues.push({ path: `${json.file}:content`, message: `the layout's content is in ${content.file}` });
    const input = { ...members, identifier, ...(content && { content: content.text, type: content.type }) };
    const place = (path: string) => (content && (path === 'content' || path === 'type') ? `${content.file}:${path}` : at(json?.file ?? file)(path));
    inputs.push({ kind: 'layouts', file, input, place });
  }
  return { inputs, issues };
}
