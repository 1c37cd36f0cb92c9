import type { KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

/**
 * Keys and indexed text are binary strings in MySQL (see `@tidings/sql`'s MySQL baseline), which
 * mysql2 reads as Buffers; no column holds bytes that are not UTF-8 text, so every Buffer of a
 * result is read back as the text it was written as.
 */
export class BinaryTextPlugin implements KyselyPlugin {
  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const { result } = args;
    if (result.rows.length === 0) return result;
    const rows = result.rows.map((row) => {
      let out: UnknownRow | null = null;
      for (const name in row) {
        const value = row[name];
        if (!Buffer.isBuffer(value)) continue;
        out ??= { ...row };
        out[name] = value.toString('utf8');
      }
      return out ?? row;
    });
    return { ...result, rows };
  }
}
