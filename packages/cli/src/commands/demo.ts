import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { queryTermsOf } from "@engram/core/internal";
import type { Command } from "commander";
import { globals } from "../context.js";
import { DEMO_QUERIES, demoFiles } from "../demo-content.js";
import { type Io, line } from "../output.js";
import { openMemory } from "../workspace.js";
import { describeSync } from "./sync.js";

/** Up to two lines of a snippet holding query terms (else its first line), with line numbers. */
function matchingLines(
  snippet: string,
  firstLine: number,
  queryTerms: ReadonlySet<string>,
  termsOf: (text: string) => string[],
): Array<[number, string]> {
  const lines = snippet.split("\n").map((text, i): [number, string] => [firstLine + i, text]);
  const hits = lines.filter(([, text]) => termsOf(text).some((t) => queryTerms.has(t)));
  return (hits.length ? hits : lines.filter(([, text]) => text.trim())).slice(0, 2);
}

/** `engram demo`: write an example workspace, index it, and search it — no API key needed. */
export function registerDemo(program: Command, io: Io): void {
  program
    .command("demo")
    .description(
      "create an example workspace (English + Chinese notes), index it and run a few searches",
    )
    .option("--dir <dir>", "where to create it", "engram-demo")
    .action(async (flags: { dir: string }, cmd: Command) => {
      const dir = resolve(flags.dir);
      const written: string[] = [];
      for (const [path, content] of Object.entries(demoFiles(new Date()))) {
        const abs = join(dir, path);
        await mkdir(dirname(abs), { recursive: true });
        try {
          await writeFile(abs, content, { flag: "wx" });
          written.push(path);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
        }
      }
      const g = globals(cmd);
      line(
        io,
        `Example workspace: ${dir} (${written.length ? `wrote ${written.length} files` : "files already there, kept as they are"})`,
      );
      const memory = await openMemory(dir);
      try {
        const report = await memory.sync();
        if (report) line(io, describeSync(report));
        for (const query of DEMO_QUERIES) {
          const { results, degraded } = await memory.search(query, { maxResults: 3 });
          line(io);
          line(
            io,
            `$ engram search "${query}"${degraded ? "   (keyword search: no embedding provider configured)" : ""}`,
          );
          const queryTerms = new Set(queryTermsOf(memory.analyzer, query));
          const termsOf = (text: string) => memory.analyzer.terms(text);
          for (const r of results) {
            line(
              io,
              `  ${r.path}:${r.startLine}-${r.endLine}  score ${r.score.toFixed(2)}  [${r.tier}]`,
            );
            for (const [n, text] of matchingLines(r.snippet, r.startLine, queryTerms, termsOf)) {
              line(io, `    ${String(n).padStart(3)} │ ${text}`);
            }
          }
          if (!results.length) line(io, "  (no results)");
        }
      } finally {
        await memory.close();
      }
      const ws = relative(process.cwd(), dir) || ".";
      const cli = g.json || !io.env.npm_lifecycle_event ? "engram" : "npm run engram --";
      line(io);
      line(io, "Try it yourself:");
      line(io, `  ${cli} search "migration blocker" --workspace ${ws}`);
      line(
        io,
        `  ${cli} add "Lin prefers PostgreSQL advisory locks over Redis locks" --workspace ${ws}`,
      );
      line(io, `  ${cli} status --workspace ${ws}`);
    });
}
