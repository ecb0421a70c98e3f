import { createHash } from "node:crypto";
import { lstat, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import type { GenerateRequest } from "@engram/core";
import {
  type Analyzer,
  entriesOf,
  factsOf,
  missingFacts,
  normalizeForDedupe,
  termJaccard,
} from "@engram/core/internal";
import { expect } from "vitest";

/** Facts the simulated agent hears, English and Chinese; some come back day after day. */
export const FACTS = [
  "Lin prefers advisory locks over Redis locks",
  "The team ships on Tuesdays after the 10:00 standup",
  "用户喜欢简洁的回答，先给结论",
  "Deploys need two approvals from the on-call engineer",
  "项目「青鸟」的负责人是王芳",
  "Backups run nightly at 02:00 on db-7",
  "The API rate limit is 600 requests per minute",
  "用户偏好深色主题",
  "On-call rotates every Monday",
  "The VPN uses WireGuard on port 51820",
  "回滚方案在 ops/rollback.md",
  "Logs are kept for 30 days in the archive bucket",
];

export const CHATTER = [
  "lunch was fine",
  "coffee machine is broken again",
  "今天天气不错",
  "ok, thanks",
];

/** The simulated day `d`'s log entries (one entry per string). */
export function dayEntries(d: number, rand: () => number): string[] {
  const out: string[] = [];
  const pick = (n: number) =>
    Array.from({ length: n }, () => FACTS[Math.floor(rand() * FACTS.length)] as string);
  for (const f of pick(2)) out.push(rand() < 0.3 ? `${f}.` : f);
  if (d % 7 === 0) out.push(`The staging DB listens on port ${5400 + d / 7}`);
  if (d % 4 === 1) out.push(`Release ${d} is blocked on the migration review #important`);
  if (d % 5 === 2)
    out.push(
      "<!-- engram:private -->\nThe VPN password is hunter" +
        d +
        " #important\n<!-- /engram:private -->",
    );
  out.push(CHATTER[d % CHATTER.length] as string);
  return out;
}

/**
 * A scripted model that reads the prompt as a person would: every note line holding a known fact
 * becomes an ADD (unless long-term memory already holds it), a new staging port supersedes the old
 * entry, duplicates in long-term memory are merged; and, to prove engram checks, every third call
 * also claims a number the notes never said, and every fifth rewrites an entry dropping its facts.
 */
export function simulatedModel(request: GenerateRequest, call: number): unknown {
  const prompt = request.messages[0]?.content ?? "";
  const [memoryPart, notesPart] = prompt.split("## New notes");
  const cited = (part: string | undefined) =>
    (part ?? "")
      .split("\n")
      .map((l) => /^(.+?:\d+)\| (.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ ref: m[1] as string, text: m[2] as string }));
  const memory = cited(memoryPart);
  const notes = cited(notesPart);
  const norm = (t: string) => normalizeForDedupe(t.replace(/<!--.*?-->/g, ""));
  const known = new Set(memory.map((m) => norm(m.text)));
  const ops: unknown[] = [];
  const op = (
    kind: string,
    text: string,
    target: string,
    sources: string[],
    merge: string[] = [],
  ) => ({
    op: kind,
    text,
    target,
    merge,
    sources,
    section: "",
    reason: "simulated",
  });
  for (const n of notes) {
    const port = /The staging DB listens on port (\d+)/.exec(n.text);
    if (port) {
      const old = memory.find((m) => /staging DB listens on port/.test(m.text));
      ops.push(
        old
          ? op("SUPERSEDE", `The staging DB listens on port ${port[1]}`, old.ref, [n.ref])
          : op("ADD", `The staging DB listens on port ${port[1]}`, "", [n.ref]),
      );
      continue;
    }
    const fact = FACTS.find((f) => norm(n.text) === norm(f));
    if (fact && !known.has(norm(fact))) {
      ops.push(op("ADD", fact, "", [n.ref]));
      known.add(norm(fact));
    }
  }
  // Duplicates already in long-term memory.
  const byText = new Map<string, string[]>();
  for (const m of memory) {
    if (!/^- /.test(m.text)) continue;
    const list = byText.get(norm(m.text)) ?? [];
    list.push(m.ref);
    byText.set(norm(m.text), list);
  }
  for (const [, refs] of byText) {
    if (refs.length < 2) continue;
    const first = memory.find((m) => m.ref === refs[0]);
    if (first)
      ops.push(op("MERGE", first.text.replace(/^- /, ""), refs[0] as string, [], refs.slice(1)));
  }
  const firstNote = notes.find((n) => FACTS.some((f) => norm(n.text) === norm(f)));
  if (firstNote && call % 3 === 0)
    ops.push(op("ADD", `${firstNote.text} since 1999`, "", [firstNote.ref]));
  const entry = memory.find((m) => /^- .*\d/.test(m.text));
  if (entry && call % 5 === 0)
    ops.push(op("UPDATE", "Something about the team", entry.ref, [notes[0]?.ref ?? entry.ref]));
  if (firstNote) ops.push(op("SUMMARY", firstNote.text, "", [firstNote.ref]));
  return { operations: ops };
}

/** `path → text` of every file (minus `.engram/`). */
export async function allFiles(root: string, rel = ""): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (child === ".engram") continue;
    if (e.isDirectory()) for (const [k, v] of await allFiles(root, child)) out.set(k, v);
    else out.set(child, await readFile(join(root, child), "utf8"));
  }
  return out;
}

/** Every file with its sha256 and mtime, every folder (minus `.engram/`). */
export async function treeWithTimes(root: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(join(root, rel), { withFileTypes: true })) {
    const child = rel ? `${rel}/${e.name}` : e.name;
    if (child === ".engram") continue;
    if (e.isDirectory()) {
      out.push(`${child}/`);
      out.push(...(await treeWithTimes(root, child)));
    } else {
      const abs = join(root, child);
      const hash = createHash("sha256")
        .update(await readFile(abs))
        .digest("hex");
      // In whole microseconds, read exactly (a double of milliseconds is only good to 0.24 µs).
      out.push(`${child} ${hash} ${(await lstat(abs, { bigint: true })).mtimeNs / 1000n}`);
    }
  }
  return rel ? out : out.sort();
}

/**
 * Same folders, bytes and mtimes to the microsecond: libuv's `utimes` keeps whole microseconds,
 * and the journal records each time to the microsecond, so that is exactly what undo gives back.
 */
export function expectSameTree(
  actual: readonly string[],
  expected: readonly string[],
  label: string,
): void {
  expect(actual, label).toEqual(expected);
}

/**
 * Long-term memory holds no duplicate: no two entries alike once normalised, and no two near
 * duplicates (analyzer-term Jaccard ≥ threshold) of which one holds every fact of the other.
 */
export function expectNoDuplicates(
  text: string,
  analyzer: Analyzer,
  threshold: number,
  label: string,
): void {
  const entries = entriesOf(text).filter((e) => !e.text.includes("engram:private"));
  for (let i = 0; i < entries.length; i++) {
    for (let j = i + 1; j < entries.length; j++) {
      const a = (entries[i] as { text: string }).text;
      const b = (entries[j] as { text: string }).text;
      expect(normalizeForDedupe(a) === normalizeForDedupe(b), `${label}: "${a}" twice`).toBe(false);
      if (termJaccard(analyzer, a, b) < threshold) continue;
      const mergeable =
        missingFacts(factsOf(a), b).length === 0 || missingFacts(factsOf(b), a).length === 0;
      expect(mergeable, `${label}: "${a}" and "${b}" are duplicates`).toBe(false);
    }
  }
}
