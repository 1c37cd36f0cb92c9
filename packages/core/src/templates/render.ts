import { Liquid, type FS, type LiquidOptions, type Template } from 'liquidjs';
import { splitPath } from '../util/path.js';
import type { Translator } from '../translations/translator.js';

/**
 * Limits of one render, so a template (or the data it loops over) cannot block the process: a render
 * stops with an error after RENDER_LIMIT_MS, or once it allocated MEMORY_LIMIT (liquid's units:
 * array items and string characters made), and a template longer than PARSE_LIMIT characters is
 * refused.
 */
export const RENDER_LIMIT_MS = 100;
/**
 * The liquid time of one unit of work: one subscriber's walk. A template that loops over payload
 * values costs up to RENDER_LIMIT_MS per render, and a walk renders a few texts per step. Running
 * out (of the walk's budget, or of one render's limit) means "later": the walk stops before the step
 * it could not render and runs again from there in a batch of its own. Only a step that runs out
 * alone, in a walk that rendered nothing before it, fails (the reason goes to `explain`). Plain
 * `{{ a.b }}` outputs are not liquid renders and never count.
 */
export const RENDER_BUDGET_MS = 500;

/**
 * Liquid time a batch of jobs' walks may spend before the jobs whose walk has not started yet wait
 * for a later batch (each walk has its own RENDER_BUDGET_MS), so a batch of heavy templates commits in
 * bounded time.
 */
export const BATCH_RENDER_MS = 2 * RENDER_BUDGET_MS;

/**
 * How many runs in a batch of its own a walk gets at a step that runs out of render time before
 * anything is rendered: the step fails on the last. One slow render may be the machine's (a noisy
 * neighbour, a long GC pause) rather than the template's; three in a row are the template's.
 */
export const ALONE_RENDER_RUNS = 3;

/** What one walk has spent of its RENDER_BUDGET_MS. Made per walk with `renderBudget()`. */
export interface RenderBudget {
  spentMs: number;
  /** The walk's last run in a batch of its own: spending the budget on its first rendered step fails that step. */
  readonly alone: boolean;
  /** The call's meter (a batch of jobs, a trigger call), which every walk's renders also add to. */
  readonly meter?: RenderMeter | undefined;
}

/** Liquid time spent by all the walks of one call, for the caller's own bound on how long it holds the loop. */
export interface RenderMeter {
  spentMs: number;
}

export const renderBudget = (options: { alone?: boolean; meter?: RenderMeter | undefined } = {}): RenderBudget => ({ spentMs: 0, alone: options.alone ?? false, meter: options.meter });

/** A walk ran out of render time (its budget, or one render's limit): the walk stops here and goes on later. */
export class RenderBudgetSpent extends Error {
  /**
   * `busy`: the render ran out of time while the process got less than half of it on the CPU (the
   * machine was busy, not the template): never the template's failure, the walk goes on later.
   */
  constructor(readonly spentBy: 'walk' | 'render' | 'busy') {
    super(
      spentBy === 'walk'
        ? `ran out of render time: the walk's budget is spent (${RENDER_BUDGET_MS} ms of rendering (liquid and email components) for one subscriber's walk)`
        : spentBy === 'busy'
          ? `ran out of render time while the machine was busy (the process had the CPU for less than half of the render's ${RENDER_LIMIT_MS} ms)`
          : `ran out of render time: one render took longer than its limit (${RENDER_LIMIT_MS} ms)`,
    );
    this.name = 'RenderBudgetSpent';
  }
}

const MEMORY_LIMIT = 10_000_000;
const PARSE_LIMIT = 1_000_000;
const limits = { renderLimit: RENDER_LIMIT_MS, memoryLimit: MEMORY_LIMIT, parseLimit: PARSE_LIMIT };

/**
 * Where `{% render 'name' %}` finds its template: the partials of the walk being rendered (records of
 * its environment, in the variables under PARTIALS), never the process's files. Renders are
 * synchronous, so the partials of the render in progress are set just around it.
 */
export const PARTIALS = Symbol('partials');
let partialsNow: ReadonlyMap<string, string> = new Map<string, string>();
const partialText = (name: string) => {
  const text = partialsNow.get(name);
  if (text === undefined) throw new Error(`the partial "${name}" does not exist`);
  return text;
};
const partialFs: FS = {
  // Every name "exists", so that a missing one fails with our own words when it is read.
  existsSync: () => true,
  exists: async () => true,
  readFileSync: partialText,
  readFile: async (name) => partialText(name),
  resolve: (_dir, name) => name,
  containsSync: () => true,
  contains: async () => true,
};
const engineOptions: LiquidOptions = { strictFilters: true, cache: false, ownPropertyOnly: true, fs: partialFs, root: [''], extname: '', relativeReference: false, ...limits };

/** The walk's translator (the `t` filter's catalogs and locale), in the variables under TRANSLATOR. */
export const TRANSLATOR = Symbol('translator');
let translatorNow: Translator | undefined;

/** `{{ 'invoice.due' | t: amount: payload.amount }}`: keyword arguments are the message's values. */
function translateFilter(key: unknown, ...args: unknown[]): string {
  if (!translatorNow) throw new Error('translations are not available in this template');
  const values: Record<string, unknown> = {};
  for (const arg of args) {
    if (Array.isArray(arg) && arg.length === 2 && typeof arg[0] === 'string') values[arg[0]] = arg[1];
    else if (typeof arg === 'object' && arg !== null) Object.assign(values, arg);
  }
  return translatorNow.t(String(key), values);
}

const liquid = new Liquid(engineOptions);
// For HTML bodies: every `{{ }}` output is HTML-escaped, so payload values cannot inject markup.
const htmlLiquid = new Liquid({ ...engineOptions, outputEscape: 'escape' });
for (const engine of [liquid, htmlLiquid]) engine.registerFilter('t', translateFilter);

// Parsing dominates rendering; workflows reuse a handful of texts, so parsed forms are kept (bounded).
const parsed = new Map<string, Template[]>();
const MAX_CACHED = 5_000;

// Escaping is decided when a template is parsed, so each engine keeps its own parsed forms.
function parse(text: string, html = false): Template[] {
  const key = html ? `html\u0000${text}` : text;
  let templates = parsed.get(key);
  if (!templates) {
    templates = (html ? htmlLiquid : liquid).parse(text);
    if (parsed.size >= MAX_CACHED) parsed.delete(parsed.keys().next().value as string);
    parsed.set(key, templates);
  }
  return templates;
}

/**
 * Why a liquid template cannot be saved, or null: it does not parse, or rendering it with no data
 * already exceeds the render limits (loops over literal ranges, a template bomb).
 */
export function templateSyntaxError(text: string): string | null {
  if (!text.includes('{')) return null;
  const firstLine = (error: unknown) => (error instanceof Error ? error.message.split('\n')[0]! : String(error));
  let templates: Template[];
  try {
    templates = parse(text);
  } catch (error) {
    return firstLine(error);
  }
  return trialRenderProblem(templates, RENDER_LIMIT_MS);
}

/** How long a second trial may wait for the CPU on a busy machine, in wall time. */
const TRIAL_WALL_MS = 2_000;

/**
 * Whether rendering a template with no variables already breaks the render limits: the allocation
 * limit, or RENDER_LIMIT_MS of the process's CPU time. A first trial that ran out of time while the
 * machine kept the CPU from it says nothing, so a second one measures CPU time over a longer wall
 * limit: the verdict is the template's, not the machine's.
 */
function trialRenderProblem(templates: Template[], wallLimitMs: number): string | null {
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  const cpuMs = () => {
    const { user, system } = process.cpuUsage(cpuBefore);
    return (user + system) / 1_000;
  };
  const refused = (detail: string) => `the template exceeds the render limits (${RENDER_LIMIT_MS} ms, ${MEMORY_LIMIT.toLocaleString('en')} allocations): ${detail}`;
  try {
    liquid.renderSync(templates, {}, { renderLimit: wallLimitMs });
    return wallLimitMs > RENDER_LIMIT_MS && cpuMs() >= RENDER_LIMIT_MS ? refused('template render limit exceeded') : null;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0]! : String(error);
    if (!/limit exceeded/i.test(message)) return null;
    if (!/template render limit/i.test(message)) return refused(message);
    if (wallLimitMs > RENDER_LIMIT_MS) return cpuMs() >= RENDER_LIMIT_MS ? refused(message) : null;
    return starved(cpuBefore, performance.now() - started) ? trialRenderProblem(templates, TRIAL_WALL_MS) : refused(message);
  }
}

// Most templates, and most layouts, are text with plain outputs (`{{ a.b }}`, `{{ a.b | default: 'x' }}`)
// and `{% if a.b %}…{% endif %}` blocks. Those are planned once and rendered without liquid, as liquid
// renders them (a property test holds the two equal); anything else (other filters and tags, values
// that are not scalars) goes to liquid.
type PlanPart = string | { readonly path: readonly (string | number)[]; readonly fallback?: string } | { readonly when: readonly (string | number)[]; readonly then: readonly PlanPart[] };
const TOKEN = /\{\{([\s\S]*?)\}\}|\{%([\s\S]*?)%\}/g;
const PATH = '[A-Za-z_]\\w*(?:\\.[A-Za-z_]\\w*|\\[\\d+\\])*';
const OUTPUT = new RegExp(`^\\s*(${PATH})(?:\\s*\\|\\s*default:\\s*(?:'([^'\\\\]*)'|"([^"\\\\]*)"))?\\s*$`);
const IF = new RegExp(`^\\s*if\\s+(${PATH})\\s*$`);
const ENDIF = /^\s*endif\s*$/;
const plans = new Map<string, readonly PlanPart[] | null>();

/** The plan of a template made of text, plain outputs and `if` blocks only; null for any other. */
function planOf(text: string): readonly PlanPart[] | null {
  const open: PlanPart[][] = [[]];
  const whens: (readonly (string | number)[])[] = [];
  let last = 0;
  const literal = (chunk: string) => !chunk.includes('{{') && !chunk.includes('{%');
  for (const match of text.matchAll(TOKEN)) {
    const before = text.slice(last, match.index);
    if (!literal(before)) return null;
    const parts = open.at(-1)!;
    if (before) parts.push(before);
    last = match.index + match[0].length;
    if (match[1] !== undefined) {
      const output = OUTPUT.exec(match[1]);
      if (!output) return null;
      const fallback = output[2] ?? output[3];
      parts.push({ path: splitPath(output[1]!), ...(fallback !== undefined && { fallback }) });
      continue;
    }
    const when = IF.exec(match[2]!);
    if (when) {
      whens.push(splitPath(when[1]!));
      open.push([]);
    } else if (ENDIF.test(match[2]!) && whens.length > 0) {
      const then = open.pop()!;
      open.at(-1)!.push({ when: whens.pop()!, then });
    } else return null;
  }
  const rest = text.slice(last);
  if (!literal(rest) || whens.length > 0) return null;
  if (rest) open[0]!.push(rest);
  return open[0]!;
}

function cachedPlan(text: string): readonly PlanPart[] | null {
  let plan = plans.get(text);
  if (plan === undefined) {
    plan = planOf(text);
    if (plans.size >= MAX_CACHED) plans.delete(plans.keys().next().value as string);
    plans.set(text, plan);
  }
  return plan;
}

const NOT_PLAIN = Symbol('not plain');
/** What liquid reads on lists and strings that is no property of theirs. */
const LIQUID_MEMBERS = new Set<string | number>(['size', 'first', 'last']);

/** The value at `path` as liquid reads it; NOT_PLAIN where liquid reads more than own properties (a string's, a list's size). */
function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let current = root;
  for (const part of path) {
    if (current === undefined || current === null) return undefined;
    if (typeof current !== 'object') return NOT_PLAIN;
    if (!Object.prototype.hasOwnProperty.call(current, part)) return LIQUID_MEMBERS.has(part) ? NOT_PLAIN : undefined;
    current = (current as Record<string | number, unknown>)[part];
  }
  return current;
}

const plain = (value: unknown): value is string | number | boolean | undefined | null => value === undefined || value === null || typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/** A plan rendered as liquid renders its template; NOT_PLAIN where a value is one liquid must judge (an object, a list). */
function renderPlan(plan: readonly PlanPart[], variables: Record<string, unknown>, html: boolean): string | typeof NOT_PLAIN {
  let out = '';
  for (const part of plan) {
    if (typeof part === 'string') {
      out += part;
      continue;
    }
    if ('when' in part) {
      const value = valueAt(variables, part.when);
      if (!plain(value)) return NOT_PLAIN;
      // Liquid's truth: only nil and false are false ('' and 0 are true).
      if (value === undefined || value === null || value === false) continue;
      const inner = renderPlan(part.then, variables, html);
      if (inner === NOT_PLAIN) return NOT_PLAIN;
      out += inner;
      continue;
    }
    let value = valueAt(variables, part.path);
    if (!plain(value)) return NOT_PLAIN;
    // `default` replaces nil, false and the empty string.
    if (part.fallback !== undefined && (value === undefined || value === null || value === false || value === '')) value = part.fallback;
    if (value === undefined || value === null) continue;
    out += html ? escapeHtml(String(value)) : String(value);
  }
  return out;
}

/** HTML-escapes text the way liquid's `escape` filter does. */
export const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;');

/**
 * Renders a liquid template against `variables`; text without `{` is returned as is. With
 * `{ html: true }` every output is HTML-escaped.
 */
export interface RenderOptions {
  /** HTML-escape every output. */
  readonly html?: boolean;
  /** The walk's budget: liquid renders are timed against it and refused once it is spent. */
  readonly budget?: RenderBudget;
}

export function renderTemplate(text: string, variables: Record<string, unknown>, options: RenderOptions = {}): string {
  if (!text.includes('{')) return text;
  const plan = cachedPlan(text);
  const planned = plan ? renderPlan(plan, variables, options.html === true) : NOT_PLAIN;
  return planned === NOT_PLAIN ? liquidRender(text, variables, options) : planned;
}

// process.cpuUsage() is a system call: a render reuses a reading up to CPU_READING_MS old as its
// starting point (the starvation check compares against RENDER_LIMIT_MS, so the error is small).
const CPU_READING_MS = 10;
let lastReading: { at: number; usage: NodeJS.CpuUsage } | undefined;
function cpuReading(now: number): NodeJS.CpuUsage {
  if (!lastReading || now - lastReading.at > CPU_READING_MS) lastReading = { at: now, usage: process.cpuUsage() };
  return lastReading.usage;
}

/** Whether the process had the CPU for less than half of `wallMs` since `before`: the render waited for the machine. */
export function starved(before: NodeJS.CpuUsage, wallMs: number): boolean {
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1_000 < wallMs / 2;
}

function liquidRender(text: string, variables: Record<string, unknown>, options: RenderOptions): string {
  const before = { partials: partialsNow, translator: translatorNow };
  const own = variables as { [PARTIALS]?: ReadonlyMap<string, string>; [TRANSLATOR]?: Translator };
  partialsNow = own[PARTIALS] ?? NO_PARTIALS;
  translatorNow = own[TRANSLATOR];
  try {
    return timedRender(text, variables, options);
  } finally {
    partialsNow = before.partials;
    translatorNow = before.translator;
  }
}

const NO_PARTIALS: ReadonlyMap<string, string> = new Map();

function timedRender(text: string, variables: Record<string, unknown>, options: RenderOptions): string {
  const engine = options.html ? htmlLiquid : liquid;
  const templates = parse(text, options.html);
  const { budget } = options;
  if (!budget) return engine.renderSync(templates, variables) as string;
  const left = RENDER_BUDGET_MS - budget.spentMs;
  if (left <= 0) throw new RenderBudgetSpent('walk');
  // One render never holds the event loop longer than RENDER_LIMIT_MS, alone or not.
  const limit = Math.min(RENDER_LIMIT_MS, left);
  const started = performance.now();
  const cpuBefore = cpuReading(started);
  try {
    return engine.renderSync(templates, variables, { renderLimit: limit }) as string;
  } catch (error) {
    // Out of time: the walk decides whether that is "later" or, alone and at its first render, a failure.
    if (error instanceof Error && /template render limit exceeded/.test(error.message)) throw new RenderBudgetSpent(limit < RENDER_LIMIT_MS ? 'walk' : starved(cpuBefore, performance.now() - started) ? 'busy' : 'render');
    throw error;
  } finally {
    const spent = performance.now() - started;
    budget.spentMs += spent;
    if (budget.meter) budget.meter.spentMs += spent;
  }
}
