import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll } from 'vitest';

/**
 * Fresh schema names for one test file (`prefix_<random>`), all dropped after the file's tests: each
 * test keeps its rows to itself.
 */
export function freshSchemas(url: string | undefined, prefix: string): () => string {
  const schemas: string[] = [];
  afterAll(async () => {
    if (!url || schemas.length === 0) return;
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    for (const schema of schemas) await admin.query(`drop schema if exists "${schema}" cascade`);
    await admin.end();
  });
  return () => {
    const schema = `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
    schemas.push(schema);
    return schema;
  };
}
