import { join } from "node:path";
import { type MemoryStore, TermCountReader } from "@engram/core/driver";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { StatementCache } from "../src/connection.js";
import { CHUNK_TERMS_TABLE, openLayout, TERM_IDS_TABLE } from "../src/schema.js";
import { TermDictionary } from "../src/term-dictionary.js";
import { upsert, useTempStores } from "./helpers.js";

const temp = useTempStores();

/** Every chunk's stored term counts, decoded through the term ids, against its terms. */
function storedTerms(path: string): Map<string, Map<string, number>> {
  const db = new Database(path, { readonly: true });
  try {
    const names = new Map(
      db.prepare(`SELECT id, term FROM ${TERM_IDS_TABLE}`).raw().all() as Array<[number, string]>,
    );
    const rows = db
      .prepare(`SELECT c.id, t.terms FROM chunks AS c JOIN ${CHUNK_TERMS_TABLE} AS t USING (rowid)`)
      .raw()
      .all() as Array<[string, Buffer]>;
    const reader = new TermCountReader();
    return new Map(
      rows.map(([id, blob]) => {
        const counts = new Map<string, number>();
        for (reader.read(blob); reader.next(); ) {
          counts.set(names.get(reader.id) ?? `#${reader.id}`, reader.count);
        }
        return [id, counts];
      }),
    );
  } finally {
    db.close();
  }
}

function counted(terms: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return counts;
}

/** `n` distinct terms starting with `prefix`, each repeated by its position. */
function terms(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => new Array((i % 3) + 1).fill(`${prefix}${i}`)).flat();
}

describe("each chunk's term counts (the postings' source)", () => {
  it("stores every chunk's terms exactly, however the term ids were found", async () => {
    const path = join(await temp.dir(), "index.sqlite");
    const first = await temp.open({ path });
    const expected = new Map<string, Map<string, number>>();
    const write = async (store: MemoryStore, file: string, chunkTerms: string[]) => {
      await store.write({ upserts: [upsert(file, [[1, chunkTerms]])] });
      expected.set(`${file}:1`, counted(chunkTerms));
    };
    // A new index: ids numbered in memory.
    await write(first, "a.md", ["记忆", "用户", ...terms("a", 400)]);
    // Another connection: a few unknown terms (looked up in the table) …
    const second = await temp.open({ path });
    await write(second, "b.md", ["记忆", "new", ...terms("a", 10)]);
    // … and many (the whole table read once).
    await write(second, "c.md", [...terms("c", 600), ...terms("a", 50)]);
    // The first connection catches up with the second's ids.
    await write(first, "d.md", ["new", "c5", "d", "用户"]);
    // A write that fails after numbering its new terms rolls back; those ids are forgotten, and
    // the next writes (numbering the same terms again) still agree.
    const db = new Database(path);
    db.exec(`CREATE TRIGGER fail BEFORE INSERT ON ${CHUNK_TERMS_TABLE}
      WHEN (SELECT path FROM chunks WHERE rowid = NEW.rowid) = 'e.md'
      BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    await expect(first.write({ upserts: [upsert("e.md", [[1, ["e1", "e2"]]])] })).rejects.toThrow(
      /injected failure/,
    );
    db.exec("DROP TRIGGER fail");
    db.close();
    await write(first, "f.md", ["e2", "f", "new"]);
    await write(second, "g.md", ["e1", "f", "g"]);
    await write(second, "empty.md", []);
    expect(storedTerms(path)).toEqual(expected);
  });

  it("numbers terms right past the cache's cap: in memory, in bulk, then through the table", () => {
    const db = new Database(":memory:");
    openLayout(db, ":memory:");
    const dictionary = new TermDictionary(new StatementCache(db), 300);
    const write = (terms: string[]) => {
      dictionary.begin();
      const missing = new Set(terms.filter((term) => dictionary.id(term) === undefined));
      if (missing.size) dictionary.resolve(missing);
      const ids = terms.map((term) => dictionary.id(term));
      dictionary.flush();
      return ids;
    };
    const table = () =>
      new Map(
        db.prepare(`SELECT term, id FROM ${TERM_IDS_TABLE}`).raw().all() as Array<[string, number]>,
      );
    const batches = [terms("a", 200), terms("b", 200), terms("a", 250), terms("c", 50)];
    for (const batch of batches) {
      const ids = write(batch);
      const stored = table();
      expect(ids).toEqual(batch.map((term) => stored.get(term)));
    }
    expect(table().size).toBe(500);
    // Another dictionary on the same table (incomplete cache): many unknown terms, then a few.
    const other = new TermDictionary(new StatementCache(db), 300);
    other.begin();
    const many = new Set([...terms("b", 200), ...terms("d", 300)]);
    other.resolve(many);
    other.flush();
    const stored = table();
    for (const term of many) expect(other.id(term)).toBe(stored.get(term));
    expect(stored.size).toBe(800);
    db.close();
    // Many unknown terms in a table small enough to read whole, but too many new ones to keep.
    const small = new Database(":memory:");
    openLayout(small, ":memory:");
    small.prepare(`INSERT INTO ${TERM_IDS_TABLE} (term) VALUES ('y0'), ('y1')`).run();
    const third = new TermDictionary(new StatementCache(small), 300);
    third.begin();
    const more = new Set([...terms("y", 100), ...terms("z", 250)]);
    third.resolve(more);
    third.flush();
    const all = new Map(
      small.prepare(`SELECT term, id FROM ${TERM_IDS_TABLE}`).raw().all() as Array<
        [string, number]
      >,
    );
    expect(all.size).toBe(350);
    for (const term of more) expect(third.id(term)).toBe(all.get(term));
    small.close();
  });

  it("reads the whole table only for unknown terms that are a good share of it", () => {
    const db = new Database(":memory:");
    openLayout(db, ":memory:");
    db.prepare(`INSERT INTO ${TERM_IDS_TABLE} (term) SELECT value FROM json_each(?)`).run(
      JSON.stringify(Array.from({ length: 4000 }, (_, i) => `t${i}`)),
    );
    const resolved = (names: string[]) => {
      const dictionary = new TermDictionary(new StatementCache(db));
      dictionary.begin();
      dictionary.resolve(new Set(names));
      dictionary.flush();
      for (const name of names) expect(dictionary.id(name)).toBeGreaterThan(0);
      return dictionary.known.size;
    };
    // A one-shot edit: 300 unknown terms of 4,000, looked up (and the new ones numbered).
    const edit = [...Array.from({ length: 250 }, (_, i) => `t${i * 16}`), ...terms("new", 50)];
    expect(resolved([...new Set(edit)])).toBe(300);
    // A cold sync's batch: 600 of 4,050, at least an eighth: the table is read whole.
    expect(resolved(Array.from({ length: 600 }, (_, i) => `t${i}`))).toBe(4050);
    db.close();
  });

  it("gives the terms of ids: cached, from the whole table, or through the table past the cap", () => {
    const db = new Database(":memory:");
    openLayout(db, ":memory:");
    const insert = (names: string[]) =>
      db
        .prepare(`INSERT INTO ${TERM_IDS_TABLE} (term) SELECT value FROM json_each(?)`)
        .run(JSON.stringify([...new Set(names)]));
    const table = () =>
      db.prepare(`SELECT id, term FROM ${TERM_IDS_TABLE}`).raw().all() as Array<[number, string]>;
    const expectTerms = (dictionary: TermDictionary, ids: number[]) => {
      dictionary.begin();
      const termOf = dictionary.termsOf(new Set(ids));
      const stored = new Map(table());
      expect(ids.map(termOf)).toEqual(ids.map((id) => stored.get(id)));
    };
    insert(terms("a", 250));
    const everyId = () => table().map(([id]) => id);
    // A few ids (one statement), then many in a table that fits (read whole), then from memory.
    const fits = new TermDictionary(new StatementCache(db), 300);
    expectTerms(fits, everyId().slice(0, 10));
    expectTerms(fits, everyId());
    db.prepare(`DELETE FROM ${TERM_IDS_TABLE} WHERE id > 100`).run(); // only memory has them now
    const cached = fits.termsOf(new Set([200, 250]));
    expect([cached(200), cached(250)]).toEqual(["a199", "a249"]);
    // A table past the cap: many ids go through the table, as many as fit are kept.
    insert(terms("b", 400));
    const capped = new TermDictionary(new StatementCache(db), 300);
    expectTerms(capped, everyId());
    expectTerms(capped, everyId().reverse());
    db.close();
  });
});
