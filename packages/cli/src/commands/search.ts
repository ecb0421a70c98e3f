import { EngramError, isTier, type SearchResponse, TIERS, type Tier } from "@engram/core";
import type { Command } from "commander";
import { palette } from "../colour.js";
import { positiveInt, unitNumber, withMemory } from "../context.js";
import { type Io, json, line, warn } from "../output.js";

interface SearchFlags {
  maxResults?: string;
  mode?: string;
  tier?: string;
  minScore?: string;
  fusion?: string;
  source?: string;
  scope?: string;
  sync?: boolean;
  rerank?: boolean;
}

/** `engram search "query"`: hybrid search with snippets citing file and lines. */
export function registerSearch(program: Command, io: Io): void {
  program
    .command("search")
    .description("search memory (hybrid: keywords + vectors when a provider is configured)")
    .argument("<query...>", "what to look for")
    .option("-k, --max-results <n>", "most results (default 6)")
    .option("--mode <mode>", "hybrid | keyword | vector (default hybrid)")
    .option(
      "--tier <tiers>",
      "comma-separated tiers: short,mid,long,archive, or all (default: all but archive)",
    )
    .option("--min-score <n>", "drop results scoring below this (0-1)")
    .option("--fusion <method>", "weighted | rrf (hybrid mode)")
    .option("--source <sources>", "comma-separated sources: memory,sessions (default: all)")
    .option("--scope <scope>", "main | group (group: nothing personal or private)")
    .option("--no-sync", "search the index as it is, without first picking up file changes")
    .option(
      "--rerank",
      "rerank with search.rerank's reranker even when search.rerank.enabled is false",
    )
    .option("--no-rerank", "keep the fused order even when a reranker is enabled")
    .action(async (words: string[], flags: SearchFlags, cmd: Command) => {
      const query = words.join(" ");
      if (query.trim() === "") {
        throw new EngramError("INVALID_ARGUMENT", "the search query is empty", {
          hint: 'say what to look for, e.g. engram search "deploy plan"',
        });
      }
      const mode = oneOf("--mode", flags.mode, ["hybrid", "keyword", "vector"] as const);
      const fusion = oneOf("--fusion", flags.fusion, ["weighted", "rrf"] as const);
      const maxResults = positiveInt("--max-results", flags.maxResults);
      const minScore = unitNumber("--min-score", flags.minScore);
      const tiers = parseTiers(flags.tier);
      const scope = oneOf("--scope", flags.scope, ["main", "group"] as const);
      const sources = flags.source
        ?.split(",")
        .map((s) => oneOf("--source", s.trim(), ["memory", "sessions"] as const))
        .filter((s) => s !== undefined);
      await withMemory(cmd, async (memory, g) => {
        // Pick up edits first, unless another process is syncing right now (then search as is).
        // An unchanged workspace is told from the files' stats, without the sync lock or a write.
        if (flags.sync !== false && !(await memory.upToDate())) {
          const report = await memory.sync({ wait: false });
          // A damaged index rebuilt on the way is said once, here as in `engram sync`.
          for (const note of report?.recovered ?? []) warn(io, note);
        }
        const response = await memory.search(query, {
          ...(mode ? { mode } : {}),
          ...(fusion ? { fusion } : {}),
          ...(maxResults ? { maxResults } : {}),
          ...(minScore !== undefined ? { minScore } : {}),
          ...(tiers ? { tiers } : {}),
          ...(sources ? { sources } : {}),
          ...(scope ? { scope } : {}),
          ...(flags.rerank !== undefined ? { rerank: flags.rerank } : {}),
        });
        if (g.json) return json(io, response);
        printResults(io, response);
      });
    });
}

function printResults(io: Io, response: SearchResponse): void {
  const c = palette(io.stdout, io.env);
  if (response.degraded) line(io, c.yellow(`(keyword search only: ${response.degradedReason})`));
  if (response.vectorsOwed) {
    line(
      io,
      c.yellow(
        `(${response.vectorsOwed} file(s) still owe their vectors: found by their keywords until engram sync embeds them)`,
      ),
    );
  }
  if (response.rerank?.skipped) {
    line(io, `(not reranked: ${response.rerank.skipped}; results in fused order)`);
  }
  const sealed = response.sealed;
  if (sealed?.skipped) {
    line(io, `(${sealed.skipped} of ${sealed.files} sealed files skipped: ${sealed.reason})`);
  }
  if (!response.results.length) {
    line(io, `No results for "${response.query}".`);
    return;
  }
  response.results.forEach((r, i) => {
    const where = r.startLine === r.endLine ? `${r.startLine}` : `${r.startLine}-${r.endLine}`;
    line(
      io,
      `${i + 1}. ${c.bold(c.cyan(`${r.path}:${where}`))}  ${c.dim(`score ${r.score.toFixed(3)}  [${r.tier}]`)}`,
    );
    for (const text of r.snippet.split("\n")) line(io, `   ${text}`);
    line(io);
  });
}

function parseTiers(value: string | undefined): Tier[] | undefined {
  if (value === undefined) return undefined;
  if (value.trim() === "all") return [...TIERS];
  const tiers = value
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean);
  const bad = tiers.filter((t) => !isTier(t));
  if (!tiers.length || bad.length) {
    throw new EngramError("INVALID_ARGUMENT", `unknown tier "${bad[0] ?? value}"`, {
      hint: `use ${TIERS.join(", ")} or all, comma-separated`,
    });
  }
  return tiers as Tier[];
}

function oneOf<T extends string>(
  flag: string,
  value: string | undefined,
  allowed: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new EngramError(
    "INVALID_ARGUMENT",
    `${flag} must be one of ${allowed.join(", ")}, got "${value}"`,
    {
      hint: `for example ${flag} ${allowed[0]}`,
    },
  );
}
