import { z } from 'zod';

export const FILTER_OPERATORS = [
  'LARGER',
  'SMALLER',
  'LARGER_EQUAL',
  'SMALLER_EQUAL',
  'EQUAL',
  'NOT_EQUAL',
  'ALL_IN',
  'ANY_IN',
  'NOT_IN',
  'BETWEEN',
  'NOT_BETWEEN',
  'LIKE',
  'NOT_LIKE',
  'IN',
] as const;
export const filterOperatorSchema = z.enum(FILTER_OPERATORS);
export type FilterOperator = z.infer<typeof filterOperatorSchema>;

export const FILTER_TYPES = ['BOOLEAN', 'TEXT', 'DATE', 'NUMBER', 'STATEMENT', 'LIST', 'MULTI_LIST', 'GROUP'] as const;
export const filterTypeSchema = z.enum(FILTER_TYPES);
export type FilterType = z.infer<typeof filterTypeSchema>;

/** `steps`: the results of earlier steps of the run (`steps.<stepId>.<field>`, an `http` step's answer). */
export const FILTER_ON = ['subscriber', 'payload', 'tenant', 'actor', 'context', 'steps'] as const;
export const filterOnSchema = z.enum(FILTER_ON);
export type FilterOn = z.infer<typeof filterOnSchema>;

/** Numbers and booleans are accepted and kept as their text, since the wire format says string. */
const filterValueSchema = z.union([z.string(), z.number(), z.boolean()]).transform(String);

export const filterPartSchema = z.strictObject({
  field: z.string().min(1),
  value: filterValueSchema,
  operator: filterOperatorSchema,
  on: filterOnSchema,
  /**
   * LIKE / NOT_LIKE only: data rendered into `value` by `{{ }}` keeps its `%`, `_` and `\` as wildcards
   * and escapes. By default they are escaped, so the triggering payload cannot choose the pattern.
   */
  rawPattern: z.boolean().optional(),
});
export type FilterPart = z.infer<typeof filterPartSchema>;

export const filterSchema = z.strictObject({
  isNegated: z.boolean().default(false),
  type: filterTypeSchema.default('GROUP'),
  value: z.enum(['AND', 'OR']),
  children: z.array(filterPartSchema),
});
export type Filter = z.infer<typeof filterSchema>;
export type FilterInput = z.input<typeof filterSchema>;
