import { auditMemory } from "@engram/core";
import type { Command } from "commander";
import { withMemory } from "../context.js";
import { type Io, json, line, plural } from "../output.js";

/** `engram audit`: what in memory is stale, duplicated, contradicted, sensitive but unmarked, or sealed without its key. */
export function registerAudit(program: Command, io: Io): void {
  program
    .command("audit")
    .description(
      "report stale, duplicated or contradicted long-term entries, unmarked secrets and personal data, and sealed files without their key",
    )
    .action(async (_flags: unknown, cmd: Command) => {
      await withMemory(cmd, async (memory, g) => {
        const report = await auditMemory(memory);
        if (g.json) return json(io, report);
        if (!report.findings.length) {
          line(io, `No findings in ${plural(report.files, "file")}.`);
          return;
        }
        for (const f of report.findings) {
          line(io, `${f.cite}  [${f.kind}: ${f.rule}]  → ${f.action}`);
          line(io, `   ${f.message}`);
        }
        const counts = Object.entries(report.counts)
          .filter(([, n]) => n > 0)
          .map(([kind, n]) => `${n} ${kind}`)
          .join(", ");
        line(
          io,
          `${plural(report.findings.length, "finding")} in ${plural(report.files, "file")}: ${counts}.`,
        );
      });
    });
}
