import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { EngramError } from "@engram/core";

/** A BEIR-format data set: `corpus.jsonl`, `queries.jsonl`, `qrels/<split>.tsv`. */
export interface BeirData {
  docs: Array<{ id: string; title: string; text: string }>;
  /** Queries that have judgements in the split. */
  queries: Array<{ id: string; text: string }>;
  qrels: Map<string, Map<string, number>>;
}

/** Read a BEIR folder. Throws `INVALID_ARGUMENT` naming what is missing. */
export async function readBeir(dir: string, split = "test"): Promise<BeirData> {
  const need = async (file: string) =>
    readFile(join(dir, file), "utf8").catch(() => {
      throw new EngramError("INVALID_ARGUMENT", `${join(dir, file)} is missing`, {
        hint: "point --dir at a BEIR folder holding corpus.jsonl, queries.jsonl and qrels/<split>.tsv",
      });
    });
  const splits = await readdir(join(dir, "qrels")).catch(() => [] as string[]);
  const qrelsFile = splits.includes(`${split}.tsv`)
    ? `${split}.tsv`
    : splits.length === 1
      ? splits[0]
      : undefined;
  if (!qrelsFile) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `no qrels/${split}.tsv in ${dir} (found: ${splits.join(", ") || "none"})`,
      {
        hint: "pass --split with one of the files in qrels/",
      },
    );
  }
  const qrels = new Map<string, Map<string, number>>();
  for (const line of (await need(`qrels/${qrelsFile}`)).split("\n").slice(1)) {
    const [query, doc, grade] = line.split("\t");
    if (!query || !doc) continue;
    const judged = qrels.get(query) ?? new Map<string, number>();
    judged.set(doc, Number(grade ?? 1));
    qrels.set(query, judged);
  }
  const jsonl = (text: string) =>
    text
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.parse(l) as { _id: string; title?: string; text: string });
  const docs = jsonl(await need("corpus.jsonl")).map((d) => ({
    id: String(d._id),
    title: d.title ?? "",
    text: d.text,
  }));
  const queries = jsonl(await need("queries.jsonl"))
    .filter((q) => qrels.has(String(q._id)))
    .map((q) => ({ id: String(q._id), text: q.text }));
  return { docs, queries, qrels };
}

/**
 * A smaller BEIR set: at most `maxDocs` documents — every judged document of the split first, then
 * the others in corpus order — and, with `queryHalf`, only the queries at even or odd positions of
 * the split (to choose settings on one half and check them on the other).
 */
export function subsetBeir(
  data: BeirData,
  options: { maxDocs?: number; queryHalf?: "even" | "odd" },
): BeirData {
  let { docs, queries } = data;
  if (options.maxDocs !== undefined && options.maxDocs < docs.length) {
    const judged = new Set([...data.qrels.values()].flatMap((m) => [...m.keys()]));
    const keep = new Set(docs.filter((d) => judged.has(d.id)).map((d) => d.id));
    for (const d of docs) {
      if (keep.size >= options.maxDocs) break;
      keep.add(d.id);
    }
    docs = docs.filter((d) => keep.has(d.id));
  }
  if (options.queryHalf) {
    const parity = options.queryHalf === "even" ? 0 : 1;
    queries = queries.filter((_, i) => i % 2 === parity);
  }
  return { docs, queries, qrels: data.qrels };
}
