import type { Database, Statement } from "better-sqlite3";

/**
 * Prepared statements of one connection, each prepared once on first use and reused after. Keyed
 * by SQL text: filtered searches build their SQL from which filter fields are present, so a few
 * variants per query exist at most.
 */
export class StatementCache {
  private readonly statements = new Map<string, Statement>();

  constructor(readonly db: Database) {}

  get(sql: string): Statement {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  /** Drop statements whose SQL mentions `table` (after the table was dropped or recreated). */
  forget(table: string): void {
    for (const sql of this.statements.keys()) if (sql.includes(table)) this.statements.delete(sql);
  }
}
