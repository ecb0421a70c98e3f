import type {
  LanguageModelStatus,
  MaintenanceStatus,
  MemoryStatus,
  WatcherHealth,
} from "@engram/core";
import { describeEmbedding } from "@engram/core/internal";
import type { Command } from "commander";
import { withMemory } from "../context.js";
import { duration, type Io, json, line } from "../output.js";

/** `engram status`: what is indexed, with what, when, and what is pending. */
export function registerStatus(program: Command, io: Io): void {
  program
    .command("status")
    .description("show files and chunks indexed, provider, last sync and pending changes")
    .action(async (_flags: unknown, cmd: Command) => {
      await withMemory(cmd, async (memory, g) => {
        const status = await memory.status();
        const maintenance = await memory.maintenanceStatus();
        if (g.json) return json(io, { ...status, maintenance });
        printStatus(io, status);
        printMaintenance(io, maintenance);
      });
    });
}

/** A rough age: `42 s`, `7 min`, `3 h`, `2 d`. */
export function age(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 120) return `${s} s`;
  if (s < 120 * 60) return `${Math.round(s / 60)} min`;
  if (s < 48 * 3600) return `${Math.round(s / 3600)} h`;
  return `${Math.round(s / 86_400)} d`;
}

/** `running (pid 123), last sync 3 s ago` / `not running` / `stale (pid 123 gone)`. */
export function describeWatcher(
  w: WatcherHealth,
  lastSyncAgeMs: number | null,
  now = Date.now(),
): string {
  if (w.state === "not running") return "not running (start one with engram watch)";
  const hb = w.heartbeat;
  const since = (iso: string | undefined) => (iso ? `${age(now - Date.parse(iso))} ago` : "never");
  if (w.state === "stale") {
    return w.reason === "pid gone"
      ? `stale (pid ${hb.pid} gone since its last heartbeat ${since(hb.beatAt)}; restart engram watch)`
      : `stale (pid ${hb.pid} silent for ${age(now - Date.parse(hb.beatAt))})`;
  }
  const error = hb.lastError
    ? `; last error ${since(hb.lastError.at)}: ${hb.lastError.message}`
    : "";
  // The index's last sync (by the watcher or anyone else) says how fresh it is.
  const synced = lastSyncAgeMs === null ? since(hb.lastSyncAt) : `${age(lastSyncAgeMs)} ago`;
  return `running (pid ${hb.pid}, up ${age(now - Date.parse(hb.startedAt))}), last sync ${synced}${error}`;
}

function bytes(n: number): string {
  return n < 1024 * 1024 ? `${Math.ceil(n / 1024)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** The circuit of a provider as one phrase: `ok`, or `open until … (CODE: message)`. */
function circuitText(c: MemoryStatus["providers"][number]["circuit"]): string {
  return c.state === "closed"
    ? "ok"
    : `${c.state} until ${new Date(c.openUntil ?? 0).toISOString()} (${c.lastErrorCode ?? "error"}: ${c.lastError ?? ""})`;
}

/** `1,234 in / 56 out in 7 calls`. */
function tokensText(t: LanguageModelStatus["spent"]): string {
  return `${t.inputTokens.toLocaleString("en-US")} in / ${t.outputTokens.toLocaleString("en-US")} out in ${t.requests} call(s)`;
}

/** The language models: each one's health and tokens, or why there is none. */
function printLanguageModels(io: Io, llm: LanguageModelStatus): void {
  if (!llm.models.length) {
    line(io, `LLM         none (${llm.notes.join("; ") || "llm.provider is none"})`);
    return;
  }
  const cap =
    llm.maxTokensPerRun === null
      ? "no cap per run"
      : `cap ${llm.maxTokensPerRun.toLocaleString("en-US")} per run`;
  line(io, `LLM         tokens spent: ${tokensText(llm.spent)} (${cap})`);
  for (const m of llm.models) {
    const name = `${m.id}/${m.model}${m.endpoint ? `@${m.endpoint}` : ""}`;
    line(
      io,
      `  ${(m.primary ? "primary" : "fallback").padEnd(9)} ${name} — ${circuitText(m.circuit)}; ${tokensText(m.spent)}`,
    );
  }
}

function printStatus(io: Io, s: MemoryStatus): void {
  const size = s.store.bytes !== undefined ? `, ${bytes(s.store.bytes)}` : "";
  line(io, `Workspace   ${s.workspace}`);
  line(
    io,
    `Store       ${s.store.kind}: ${s.store.files} files, ${s.store.chunks} chunks, ${s.store.vectors} vectors${size}`,
  );
  line(
    io,
    `Embedding   ${s.embedding ? describeEmbedding(s.embedding) : "none (keyword search only)"}${s.degraded && s.embedding ? " — degraded" : ""}`,
  );
  if (s.degradedReason && (s.embedding || s.index.embedding)) {
    line(io, `  degraded  ${s.degradedReason}`);
  }
  for (const p of s.providers) {
    const role = p.primary ? "primary" : "fallback";
    const circuit = circuitText(p.circuit);
    line(
      io,
      `  ${role.padEnd(9)} ${describeEmbedding(p.identity)}${p.active ? " [index]" : ""} — ${circuit}`,
    );
  }
  if (!s.embedding) for (const note of s.providerNotes) line(io, `  not used  ${note}`);
  printLanguageModels(io, s.llm);
  if (s.cache) {
    const rate =
      s.cache.hitRate === null
        ? ""
        : `, hit rate ${Math.round(s.cache.hitRate * 100)}% of ${s.cache.hits + s.cache.misses} lookups`;
    line(io, `Cache       ${s.cache.entries} of ${s.cache.maxEntries} vectors${rate}`);
  }
  if (s.rerank) {
    const r = s.rerank;
    const model = r.model ? ` ${r.model}${r.endpoint ? ` (${r.endpoint})` : ""}` : "";
    const when = r.enabled ? "every search" : "searches with --rerank";
    line(
      io,
      `Rerank      ${r.provider}${model}: ${when}, top ${r.candidates}, deadline ${r.timeoutMs} ms`,
    );
    const st = r.stats;
    if (st.calls) {
      const latency = st.latency
        ? `, latency p50 ${Math.round(st.latency.p50Ms)} ms / p95 ${Math.round(st.latency.p95Ms)} ms`
        : "";
      line(
        io,
        `  used      ${st.calls} search(es), ${st.documents} documents sent, ${st.skipped} kept the fused order${latency}`,
      );
      if (st.lastSkipped) line(io, `  skipped   ${st.lastSkipped.at}: ${st.lastSkipped.reason}`);
    }
  }
  if (s.vectorsPending)
    line(
      io,
      `Vectors     owed for ${s.vectorsPending} file(s), searchable by keyword meanwhile (run engram sync)`,
    );
  if (s.index.rebuildNeeded.length)
    line(io, `Rebuild     needed: ${s.index.rebuildNeeded.join("; ")} (run engram sync)`);
  for (const note of s.index.recovered) line(io, `Recovered   ${note}`);
  if (s.lastSync) {
    const ago = age(s.lastSyncAgeMs ?? Date.now() - Date.parse(s.lastSync.finishedAt));
    line(
      io,
      `Last sync   ${s.lastSync.finishedAt} (${ago} ago), took ${duration(s.lastSync.durationMs)}`,
    );
    for (const skipped of s.lastSync.skipped)
      line(io, `  skipped   ${skipped.path}: ${skipped.reason}`);
  } else {
    line(io, "Last sync   never (run engram sync)");
  }
  line(io, `Watcher     ${describeWatcher(s.watcher, s.lastSyncAgeMs)}`);
  if (s.sessions) {
    const waiting = s.sessions.deferred
      ? `, ${s.sessions.deferred} grown but under the re-index delta (searchable as indexed)`
      : "";
    line(io, `Sessions    ${s.sessions.indexed} transcript(s) indexed${waiting}`);
  }
  const pending = s.pending.changed + s.pending.removed;
  line(
    io,
    pending
      ? `Pending     ${s.pending.changed} changed, ${s.pending.removed} removed (run engram sync, or keep engram watch running)`
      : "Pending     none — the index matches the files",
  );
}

function printMaintenance(io: Io, m: MaintenanceStatus): void {
  const last = m.lastPassAt ? `last pass ${m.lastPassAt} (${m.passes} passes)` : "no pass yet";
  const next = m.nextAt ? `, next ${m.nextAt}` : "";
  line(
    io,
    `Maintenance ${m.schedule}${m.gates ? ` + gates ${JSON.stringify(m.gates)}` : ""}: ${last}${next}; ${m.due ? "due now" : m.why}`,
  );
  const run = m.lastRun;
  if (run) {
    const parts = [
      run.lifecycle ? `lifecycle ${run.lifecycle.moves} moves` : "",
      run.consolidation
        ? `consolidation ${run.consolidation.operations} operations, ${run.consolidation.refused} refused (${run.consolidation.mode})`
        : "",
      ...(run.errors ?? []),
    ].filter(Boolean);
    line(
      io,
      `  last run  ${run.at} (${run.trigger}): ${run.outcome}${parts.length ? ` — ${parts.join("; ")}` : ""}`,
    );
  }
}
