import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "@engram/core/internal";
import type { LocomoBenchResult } from "./locomo.js";

const CATEGORY_NAMES = { "1": "multi-hop", "2": "temporal", "3": "open-domain", "4": "single-hop" };

/** The LoCoMo results as a Markdown table: one row per mode and k. */
export function locomoMarkdown(r: LocomoBenchResult): string {
  const f = (n: number) => n.toFixed(3);
  const out = [
    `### LoCoMo ${r.dataset}: evidence recall (snippet lines shown)`,
    "",
    `${r.conversations} conversations, ${r.sessions} sessions, ${r.turns} turns → ${r.chunks} chunks; ` +
      `${r.questions} questions of categories 1–4 ` +
      `(${Object.entries(r.byCategory)
        .map(([c, n]) => `${CATEGORY_NAMES[c as keyof typeof CATEGORY_NAMES]} ${n}`)
        .join(
          ", ",
        )}); ${r.unresolvedEvidence.length} evidence ids name no turn (counted as misses).` +
      (r.config ? ` Config: \`${JSON.stringify(r.config)}\`.` : " Default config.") +
      (r.consolidation
        ? ` Consolidated before measuring (every question asked once, then a pass without a model): ${r.consolidation.operations} operations (${r.consolidation.added} added, ${r.consolidation.merged} merged), ${r.consolidation.refused} refused, ${(r.consolidation.ms / 1000).toFixed(2)} s.`
        : "") +
      (r.embedding
        ? ` Embedder: ${r.embedding.id} (${r.embedding.model}, ${r.embedding.dims} dims).`
        : ""),
    "",
    "| mode | k | any evidence | all evidence | multi-hop | temporal | open-domain | single-hop | context chars (mean / max) |",
    "|---|---|---|---|---|---|---|---|---|",
  ];
  for (const mode of r.modes) {
    const label = mode.degraded ? `${mode.label} (${mode.degraded})` : mode.label;
    for (const at of mode.recall) {
      const cats = (["1", "2", "3", "4"] as const).map((c) => f(at.byCategory[c].anyShare));
      out.push(
        `| ${label} | ${at.k} | ${f(at.any)} | ${f(at.all)} | ${cats.join(" | ")} | ${Math.round(at.context.meanChars)} / ${at.context.maxChars} |`,
      );
    }
  }
  out.push(
    "",
    `Search p50 / p95: ${r.modes.map((m) => `${m.label} ${m.search.p50Ms.toFixed(1)} / ${m.search.p95Ms.toFixed(1)} ms`).join("; ")}. Sync of all conversations: ${(r.syncMs / 1000).toFixed(2)} s.`,
  );
  return `${out.join("\n")}\n`;
}

/**
 * Write `locomo-<dataset>.json` and `.md` into `dir` (created if missing; each file replaced
 * atomically). Returns the two paths.
 */
export async function writeLocomoResults(
  dir: string,
  r: LocomoBenchResult,
): Promise<{ json: string; markdown: string }> {
  await mkdir(dir, { recursive: true });
  const dataset = r.dataset.replace(/^locomo[-_]?/i, "").replace(/[^A-Za-z0-9._-]/g, "_") || "data";
  // A run with --embedder (or --consolidate) gets files of its own: the plain table stays as it is.
  const name = `locomo-${dataset}${r.embedding ? `-${r.embedding.id}` : ""}${r.consolidation ? "-consolidated" : ""}`;
  const json = join(dir, `${name}.json`);
  const markdown = join(dir, `${name}.md`);
  await writeFileAtomic(json, `${JSON.stringify(r, null, 2)}\n`);
  await writeFileAtomic(markdown, locomoMarkdown(r));
  return { json, markdown };
}
