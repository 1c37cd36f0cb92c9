import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

/** A zod schema (v3 or v4), as far as validation needs one. */
export interface ZodLike<T = unknown> {
  readonly _output: T;
  safeParseAsync(data: unknown): Promise<{ success: true; data: T } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string }[] } }>;
}

/** A JSON Schema object (`{ type: 'object', properties: … }`). */
export type JsonSchema = { readonly type?: unknown; readonly properties?: unknown; readonly [key: string]: unknown };

/** Either kind of schema a workflow, step or output may declare. */
export type Schema = ZodLike | JsonSchema;

/** The data a schema describes: zod's output type, or an object for a JSON Schema. */
export type SchemaOutput<S> = S extends ZodLike<infer T> ? T : Record<string, unknown>;

export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

export type Checked = { readonly ok: true; readonly data: Record<string, unknown> } | { readonly ok: false; readonly issues: readonly FieldIssue[] };

const isZod = (schema: Schema): schema is ZodLike => typeof (schema as { safeParseAsync?: unknown }).safeParseAsync === 'function';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (ajv: Ajv) => Ajv;
// Defaults filled in and failing extra members dropped, as @novu/framework validates.
const ajv = addFormats(new Ajv({ useDefaults: true, removeAdditional: 'failing', allErrors: true, strict: false }));
const compiled = new WeakMap<object, ValidateFunction>();

const joinPath = (prefix: string, parts: readonly PropertyKey[]) => [prefix, ...parts.map(String)].filter((p) => p !== '').join('.');

/** Validates `data` against a zod or JSON Schema, defaults applied; issues name each field under `prefix`. */
export async function check(schema: Schema, data: unknown, prefix: string): Promise<Checked> {
  if (isZod(schema)) {
    const parsed = await schema.safeParseAsync(data);
    if (parsed.success) return { ok: true, data: parsed.data as Record<string, unknown> };
    return { ok: false, issues: parsed.error.issues.map((i) => ({ path: joinPath(prefix, i.path), message: i.message })) };
  }
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = ajv.compile(schema)));
  const copy = structuredClone(data ?? {}) as Record<string, unknown>;
  if (validate(copy)) return { ok: true, data: copy };
  return {
    ok: false,
    issues: (validate.errors ?? []).map((e) => {
      const missing = e.keyword === 'required' ? String((e.params as { missingProperty?: string }).missingProperty) : '';
      const parts = [...e.instancePath.split('/').filter((p) => p !== ''), ...(missing ? [missing] : [])];
      return { path: joinPath(prefix, parts), message: e.keyword === 'required' ? 'is required' : e.message ?? 'is invalid' };
    }),
  };
}
