import { readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as core from '../src/index.js';
import * as conformance from '../src/conformance.js';
import * as testing from '../src/testing/index.js';

/** Every name the root entry exports, values and types together, read from its source. */
function rootExports(): string[] {
  const file = new URL('../src/index.ts', import.meta.url);
  const source = ts.createSourceFile('index.ts', readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isExportDeclaration(statement)) continue;
    // `export *` would export names nobody chose: the root lists each one.
    expect(statement.exportClause, 'the root entry has no export *').toBeDefined();
    if (statement.exportClause && ts.isNamedExports(statement.exportClause)) names.push(...statement.exportClause.elements.map((e) => e.name.text));
  }
  return names;
}

describe('the declared API of @tidings/core', () => {
  it('the root entry exports at most 100 names, each once', () => {
    const names = rootExports();
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeLessThanOrEqual(100);
  });

  it('the contract code outside the project calls stays at the root (DESIGN §2), and the testing and conformance entries keep theirs', () => {
    for (const name of ['createTidings', 'evaluateFilters', 'explainFilters', 'isWithinSchedule', 'nextScheduleOpening', 'resolvePreferences', 'digestDueAt', 'delayDueAt', 'applyMarkAs', 'isTidingsError'] as const) {
      expect(typeof core[name], name).toBe('function');
    }
    expect(new core.TidingsError('not_found', 'x')).toBeInstanceOf(Error);
    expect(typeof testing.manualClock).toBe('function');
    expect(typeof conformance.describeStorage).toBe('function');
  });
});
