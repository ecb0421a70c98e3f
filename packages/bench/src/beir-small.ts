import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONFIG_FILE, type Embedder, type EngramConfigInput } from "@engram/core";
import { type BeirData, readBeir } from "./beir-data.js";
import { openBenchMemory } from "./bench-memory.js";
import { benchModes } from "./modes.js";
import { mrrAt, ndcgAt, recallAt } from "./retrieval-metrics.js";

/** Options of {@link benchBeirSmall}. */
export interface BeirSmallOptions {
  dir: string;
  split?: string;
  /** Documents per workspace (20–200 is what most agents have). */
  docs: number;
  config?: EngramConfigInput;
  embedder?: Embedder;
  log?: (line: string) => void;
}

/** What {@link benchBeirSmall} measured. */
export interface BeirSmallResult {
  dataset: string;
  split: string;
  /** Documents per workspace asked for, and the workspaces' sizes as built (judged documents added). */
  docsPerWorkspace: number;
  workspaces: number;
  sizes: { min: number; median: number; max: number };
  queries: number;
  modes: Array<{ label: string; quality: { ndcg10: number; recall100: number; mrr10: number } }>;
}

/**
 * Retrieval quality on small workspaces: the corpus cut, in corpus order, into windows of `docs`
 * documents; each query is asked in the window holding its first judged document, with its other
 * judged documents added to that window. Every window is its own workspace (own index, own BM25
 * statistics), as a user's agent with a few dozen notes would have.
 */
export async function benchBeirSmall(options: BeirSmallOptions): Promise<BeirSmallResult> {
  const split = options.split ?? "test";
  const data = await readBeir(options.dir, split);
  const groups = smallWorkspaces(data, options.docs);
  const root = await mkdtemp(join(tmpdir(), "engram-bench-small-"));
  const sums = new Map<string, { ndcg10: number; recall100: number; mrr10: number }>();
  let labels: string[] = [];
  try {
    for (const [i, group] of groups.entries()) {
      const ws = join(root, `ws-${i}`);
      await mkdir(join(ws, "memory", "corpus"), { recursive: true });
      if (options.config) {
        await writeFile(join(ws, CONFIG_FILE), JSON.stringify(options.config, null, 2));
      }
      const docOfPath = new Map<string, string>();
      for (const [j, doc] of group.docs.entries()) {
        const path = `memory/corpus/${j}.md`;
        docOfPath.set(path, doc.id);
        await writeFile(join(ws, path), `# ${doc.title.trim() || doc.id}\n\n${doc.text.trim()}\n`);
      }
      const memory = await openBenchMemory(ws, options.embedder);
      try {
        await memory.sync();
        const modes = benchModes(memory);
        labels = modes.map((m) => m.label);
        for (const mode of modes) {
          const sum = sums.get(mode.label) ?? { ndcg10: 0, recall100: 0, mrr10: 0 };
          for (const query of group.queries) {
            const judged = data.qrels.get(query.id) ?? new Map<string, number>();
            const { results } = await memory.search(query.text, {
              mode: mode.mode,
              maxResults: 200,
              ...(mode.fusion ? { fusion: mode.fusion } : {}),
            });
            const ranked = [...new Set(results.map((r) => docOfPath.get(r.path) ?? r.path))];
            sum.ndcg10 += ndcgAt(ranked, judged, 10);
            sum.recall100 += recallAt(ranked, judged, 100);
            sum.mrr10 += mrrAt(ranked, judged, 10);
          }
          sums.set(mode.label, sum);
        }
      } finally {
        await memory.close();
        await rm(ws, { recursive: true, force: true });
      }
      if ((i + 1) % 20 === 0) options.log?.(`${i + 1}/${groups.length} workspaces`);
    }
  } finally {
    await rm(root, { recursive: true, force: true });
  }
  const n = Math.max(
    1,
    groups.reduce((a, g) => a + g.queries.length, 0),
  );
  const sizes = groups.map((g) => g.docs.length).sort((a, b) => a - b);
  return {
    dataset: options.dir.split(/[\\/]/).filter(Boolean).at(-1) ?? options.dir,
    split,
    docsPerWorkspace: options.docs,
    workspaces: groups.length,
    sizes: {
      min: sizes[0] ?? 0,
      median: sizes[Math.floor(sizes.length / 2)] ?? 0,
      max: sizes.at(-1) ?? 0,
    },
    queries: n,
    modes: labels.map((label) => {
      const s = sums.get(label) ?? { ndcg10: 0, recall100: 0, mrr10: 0 };
      return {
        label,
        quality: { ndcg10: s.ndcg10 / n, recall100: s.recall100 / n, mrr10: s.mrr10 / n },
      };
    }),
  };
}

/** The windows that hold a query, each with its queries and its documents (judged ones added). */
export function smallWorkspaces(
  data: BeirData,
  size: number,
): Array<{ docs: BeirData["docs"]; queries: BeirData["queries"] }> {
  const position = new Map(data.docs.map((d, i) => [d.id, i]));
  const windows = new Map<
    number,
    { docs: Map<string, BeirData["docs"][number]>; queries: BeirData["queries"] }
  >();
  for (const query of data.queries) {
    const judged = [...(data.qrels.get(query.id)?.keys() ?? [])].filter((id) => position.has(id));
    if (!judged.length) continue;
    const first = Math.min(...judged.map((id) => position.get(id) as number));
    const w = Math.floor(first / size);
    let window = windows.get(w);
    if (!window) {
      const docs = data.docs.slice(w * size, (w + 1) * size);
      window = { docs: new Map(docs.map((d) => [d.id, d])), queries: [] };
      windows.set(w, window);
    }
    for (const id of judged) {
      const doc = data.docs[position.get(id) as number];
      if (doc) window.docs.set(id, doc);
    }
    window.queries.push(query);
  }
  return [...windows.values()].map((w) => ({ docs: [...w.docs.values()], queries: w.queries }));
}
