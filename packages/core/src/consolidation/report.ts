import { formatRef } from "./citations.js";
import type { ConsolidationPlan, PlannedOperation, Refusal } from "./types.js";

const quote = (text: string) => `"${text.replace(/\s*\n\s*/g, " ").trim()}"`;
const refs = (list: PlannedOperation["sources"]) => list.map(formatRef).join(", ");

/**
 * The readable report of one pass, appended to the day's `memory/dreams/YYYY-MM-DD.md`: what was
 * added, updated, superseded and merged (each with its sources and where the old text went), the
 * summaries, what was refused and why, and what was read.
 */
export function formatReport(
  existing: string | null,
  input: {
    date: string;
    time: string;
    passId: string;
    plan: Pick<
      ConsolidationPlan,
      | "mode"
      | "model"
      | "operations"
      | "refused"
      | "duplicates"
      | "keptApart"
      | "newMaterial"
      | "tokens"
      | "guard"
      | "modelError"
    >;
  },
): string {
  const { plan } = input;
  const out: string[] = [];
  const by =
    plan.mode === "model" && plan.model
      ? `model ${plan.model.id}/${plan.model.model}`
      : "deterministic (no model)";
  out.push(`## ${input.time} · ${by} · pass ${input.passId}`, "");
  const read = plan.newMaterial.filter((m) => m.processed);
  const lines = read.reduce((s, m) => s + (m.endLine - m.startLine + 1), 0);
  out.push(
    read.length
      ? `Read ${lines} new lines in ${read.length} files: ${read
          .map((m) => `${m.path}:${m.startLine}-${m.endLine}`)
          .slice(0, 12)
          .join(", ")}${read.length > 12 ? ", …" : ""}.`
      : plan.newMaterial.length
        ? "No new notes were read."
        : "No new notes since the last pass.",
  );
  const unread = plan.newMaterial.filter((m) => !m.processed);
  if (plan.modelError) out.push(`The model failed: ${plan.modelError}`);
  if (unread.length)
    out.push(
      `Left for the next pass (${plan.modelError ? "the model failed" : "token budget"}): ${unread.map((m) => m.path).join(", ")}.`,
    );
  if (plan.mode === "model") {
    out.push(
      `Model calls: ${plan.tokens.calls}, tokens sent ${plan.tokens.input}, received ${plan.tokens.output}.`,
    );
  }
  const section = (
    title: string,
    ops: PlannedOperation[],
    line: (o: PlannedOperation) => string,
  ) => {
    if (!ops.length) return;
    out.push("", `### ${title}`, "");
    for (const o of ops) out.push(`- ${line(o)}`);
  };
  const kind = (k: PlannedOperation["op"]) => plan.operations.filter((o) => o.op === k);
  const at = (o: PlannedOperation) => (o.placed ? formatRef(o.placed) : (o.file ?? ""));
  section(
    "Added",
    kind("ADD"),
    (o) => `${at(o)}: ${quote(o.text)} — from ${refs(o.sources)} (${o.reason || o.origin})`,
  );
  section(
    "Updated",
    kind("UPDATE"),
    (o) =>
      `${at(o)}: ${quote(o.text)} — was ${refs(o.targets)}, archived in ${o.archivedTo}; from ${refs(o.sources)}${o.reason ? ` (${o.reason})` : ""}`,
  );
  section(
    "Superseded",
    kind("SUPERSEDE"),
    (o) =>
      `${refs(o.targets)} → ${quote(o.text)} — the old entry is archived in ${o.archivedTo}; because of ${refs(o.sources)}${o.reason ? ` (${o.reason})` : ""}`,
  );
  section(
    "Merged",
    kind("MERGE"),
    (o) =>
      `${o.targets.slice(1).map(formatRef).join(", ")} into ${at(o)} — archived in ${o.archivedTo} (${o.reason})`,
  );
  section("Summary", kind("SUMMARY"), (o) => `${o.text.trim()} (from ${refs(o.sources)})`);
  // Recall candidates come back every pass until recalled less: their duplicates are not news.
  const known = plan.duplicates.filter((d) => d.operation.origin !== "recall");
  if (known.length) {
    out.push("", "### Already known", "");
    for (const d of known) {
      out.push(`- ${quote(d.operation.text)} is already at ${formatRef(d.existing)} (${d.method})`);
    }
  }
  if (plan.keptApart.length) {
    out.push("", "### Similar but kept apart", "");
    for (const k of plan.keptApart)
      out.push(
        `- ${formatRef(k.a)} and ${formatRef(k.b)}: their facts differ (${k.facts.join(", ")})`,
      );
  }
  if (plan.refused.length) {
    out.push("", "### Refused", "");
    for (const r of plan.refused) out.push(`- ${describeRefusal(r)}`);
  }
  if (plan.guard.checked || plan.guard.unchecked) {
    out.push(
      "",
      `Recall guard: ${plan.guard.passed} of ${plan.guard.checked} earlier queries still find what they found${plan.guard.unchecked ? `; ${plan.guard.unchecked} could not be checked by keywords` : ""}.`,
    );
  }
  const body = `${out.join("\n")}\n`;
  if (existing === null) return `# Memory consolidation ${input.date}\n\n${body}`;
  return `${existing.replace(/\n*$/, "\n")}\n${body}`;
}

/** One line naming a refused operation and why. */
export function describeRefusal(r: Refusal): string {
  const o = r.operation;
  const what = o.targets.length ? `${o.op} ${o.targets.map(formatRef).join(", ")}` : o.op;
  const text = o.text ? ` ${quote(o.text.slice(0, 160))}` : "";
  return `${what}${text}: ${r.why} [${r.code}]`;
}
