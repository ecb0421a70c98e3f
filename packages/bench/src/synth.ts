import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { EngramError, resolveConfig } from "@engram/core";
import { chunkMarkdown, isLogFile } from "@engram/core/internal";
import { type Random, seededRandom } from "./synth-random.js";
import {
  EN_GLUE,
  EN_VERBS,
  EN_WORDS,
  NAMES,
  PROJECTS,
  TOPICS,
  ZH_GLUE,
  ZH_WORDS,
} from "./synth-vocab.js";

/** Options of {@link synthesizeWorkspace}. */
export interface SynthOptions {
  /** Chunks to generate, as a sync with the default config counts them; at least 1. */
  chunks: number;
  /** PRNG seed (default {@link DEFAULT_SYNTH_SEED}). */
  seed?: number;
  /** Share of files written in Chinese (default 0.15). */
  chineseShare?: number;
}

/** One generated Markdown file. */
export interface SynthFile {
  /** Workspace-relative path. */
  path: string;
  content: string;
  /** Chunks a sync with the default config cuts it into. */
  chunks: number;
  language: "en" | "zh";
}

/** What {@link writeSynthWorkspace} wrote. */
export interface SynthSummary {
  seed: number;
  targetChunks: number;
  files: number;
  chunks: number;
  bytes: number;
  chineseFiles: number;
}

/** The seed `engram-bench perf` uses unless told otherwise. */
export const DEFAULT_SYNTH_SEED = 20240607;

/** Days of main daily logs (`memory/YYYY-MM-DD.md`) before logs spill into project folders. */
const MAIN_LOG_DAYS = 1096;
const FIRST_DAY = Date.UTC(2023, 0, 1);

/**
 * A deterministic synthetic workspace: the same options give the same files, byte for byte. It
 * mixes daily logs (`## HH:MM` entries of 1–5 lines, as `engram add` writes them; three years in
 * `memory/`, older volume in project logs under `memory/mid-term/projects/<id>/log/`) with longer
 * knowledge notes with headings, lists and the odd code fence (`memory/long-term/<topic>/`,
 * `memory/mid-term/projects/<id>/`), plus a `MEMORY.md`. About 15% of files are Chinese. Files are
 * generated until the default chunker has cut `chunks` chunks (the last file may overshoot by a
 * few).
 *
 * @throws EngramError `INVALID_ARGUMENT` when `chunks` is not a positive whole number.
 */
export function* synthesizeWorkspace(options: SynthOptions): Generator<SynthFile> {
  if (!Number.isInteger(options.chunks) || options.chunks < 1) {
    throw new EngramError(
      "INVALID_ARGUMENT",
      `chunk count must be a positive whole number, got ${options.chunks}`,
      {
        hint: "ask for e.g. 10000 chunks",
      },
    );
  }
  const rng = seededRandom(options.seed ?? DEFAULT_SYNTH_SEED);
  const zhShare = options.chineseShare ?? 0.15;
  let total = 0;
  let day = 0;
  let note = 0;
  // Count chunks as a sync with the default config cuts them (daily logs may use smaller chunks).
  const chunking = resolveConfig().chunking;
  const emit = (path: string, content: string, language: "en" | "zh"): SynthFile => {
    const size = chunking.logs && isLogFile({ path, source: "memory" }) ? chunking.logs : chunking;
    const chunks = chunkMarkdown(content, { tokens: size.tokens, overlap: size.overlap }).length;
    total += chunks;
    return { path, content, chunks, language };
  };
  yield emit("MEMORY.md", curatedMemory(rng), "en");
  while (total < options.chunks) {
    const language = rng.chance(zhShare) ? "zh" : "en";
    if (rng.chance(0.5)) {
      yield emit(dailyLogPath(day), dailyLog(rng, day, language), language);
      day++;
    } else {
      yield emit(notePath(rng, note), knowledgeNote(rng, language), language);
      note++;
    }
  }
}

/**
 * Write {@link synthesizeWorkspace}'s files under `dir` (which should be empty) and say what was
 * written.
 */
export function writeSynthWorkspace(dir: string, options: SynthOptions): SynthSummary {
  const summary: SynthSummary = {
    seed: options.seed ?? DEFAULT_SYNTH_SEED,
    targetChunks: options.chunks,
    files: 0,
    chunks: 0,
    bytes: 0,
    chineseFiles: 0,
  };
  const made = new Set<string>();
  for (const file of synthesizeWorkspace(options)) {
    const path = join(dir, file.path);
    const folder = dirname(path);
    if (!made.has(folder)) {
      mkdirSync(folder, { recursive: true });
      made.add(folder);
    }
    writeFileSync(path, file.content);
    summary.files++;
    summary.chunks += file.chunks;
    summary.bytes += Buffer.byteLength(file.content);
    if (file.language === "zh") summary.chineseFiles++;
  }
  return summary;
}

/** A search query of the fixed benchmark set. */
export interface SynthQuery {
  text: string;
  language: "en" | "zh";
}

/**
 * The fixed query set: `en` English and `zh` Chinese queries of 1–4 words drawn from the same
 * vocabulary as the notes (so they match), deterministic for a seed.
 */
export function synthQueries(
  counts: { en: number; zh: number } = { en: 40, zh: 10 },
  seed = DEFAULT_SYNTH_SEED,
): SynthQuery[] {
  const rng = seededRandom(seed ^ 0x5eed);
  const queries: SynthQuery[] = [];
  for (let i = 0; i < counts.en; i++) {
    const words = new Set(Array.from({ length: rng.int(1, 4) }, () => rng.pickZipf(EN_WORDS)));
    queries.push({ text: [...words].join(" "), language: "en" });
  }
  for (let i = 0; i < counts.zh; i++) {
    const words = new Set(Array.from({ length: rng.int(1, 3) }, () => rng.pickZipf(ZH_WORDS)));
    queries.push({ text: [...words].join(""), language: "zh" });
  }
  return queries;
}

function dailyLogPath(day: number): string {
  const date = isoDate(day % MAIN_LOG_DAYS);
  if (day < MAIN_LOG_DAYS) return `memory/${date}.md`;
  const slot = Math.floor(day / MAIN_LOG_DAYS) - 1;
  const round = Math.floor(slot / PROJECTS.length);
  const project = `${PROJECTS[slot % PROJECTS.length]}${round ? `-${round + 1}` : ""}`;
  return `memory/mid-term/projects/${project}/log/${date}.md`;
}

function notePath(rng: Random, n: number): string {
  const slug = `${rng.pickZipf(EN_WORDS)}-${rng.pickZipf(EN_WORDS)}-${n}`;
  return rng.chance(0.6)
    ? `memory/long-term/${rng.pick(TOPICS)}/${slug}.md`
    : `memory/mid-term/projects/${rng.pick(PROJECTS)}/${slug}.md`;
}

function isoDate(day: number): string {
  return new Date(FIRST_DAY + day * 86_400_000).toISOString().slice(0, 10);
}

function curatedMemory(rng: Random): string {
  const lines = ["# Long-term Memory", ""];
  for (let i = 0; i < 24; i++) lines.push(`- ${sentence(rng, "en")}`);
  return `${lines.join("\n")}\n`;
}

/** A day's log: `# date`, then 2–20 `## HH:MM` entries of 1–5 lines. */
function dailyLog(rng: Random, day: number, language: "en" | "zh"): string {
  const parts = [`# ${isoDate(day % MAIN_LOG_DAYS)}`, ""];
  let minute = rng.int(7 * 60, 10 * 60);
  const entries = rng.int(2, 20);
  for (let e = 0; e < entries; e++) {
    minute = Math.min(23 * 60 + 59, minute + rng.int(5, 50));
    parts.push(`## ${pad(Math.floor(minute / 60))}:${pad(minute % 60)}`, "");
    const lines = rng.int(1, 5);
    for (let l = 0; l < lines; l++) {
      const text = l === 0 && language === "en" ? logOpening(rng) : sentence(rng, language);
      parts.push(lines > 1 && rng.chance(0.5) ? `- ${text}` : text);
    }
    parts.push("");
  }
  return `${parts.join("\n")}\n`;
}

/** A knowledge note: a title, an intro, 2–6 sections of paragraphs, lists and code. */
function knowledgeNote(rng: Random, language: "en" | "zh"): string {
  const parts = [`# ${title(rng, language)}`, "", paragraph(rng, language, 2, 4), ""];
  const sections = rng.int(2, 6);
  for (let s = 0; s < sections; s++) {
    parts.push(`## ${title(rng, language)}`, "");
    const blocks = rng.int(1, 4);
    for (let b = 0; b < blocks; b++) {
      const kind = rng.next();
      if (kind < 0.2) {
        for (let i = rng.int(2, 6); i > 0; i--) parts.push(`- ${sentence(rng, language)}`);
      } else if (kind < 0.27) {
        parts.push("```sh", ...codeLines(rng), "```");
      } else {
        parts.push(paragraph(rng, language, 2, 6));
      }
      parts.push("");
    }
  }
  return `${parts.join("\n")}\n`;
}

function paragraph(rng: Random, language: "en" | "zh", min: number, max: number): string {
  const count = rng.int(min, max);
  const sentences = Array.from({ length: count }, () => sentence(rng, language));
  return sentences.join(language === "zh" ? "" : " ");
}

function sentence(rng: Random, language: "en" | "zh"): string {
  if (language === "zh") {
    const words: string[] = [];
    for (let i = rng.int(4, 12); i > 0; i--) {
      const r = rng.next();
      if (r < 0.3) words.push(rng.pick(ZH_GLUE));
      else if (r < 0.33) words.push(` ${rng.pickZipf(EN_WORDS)} `);
      else if (r < 0.36) words.push(rng.pick(NAMES));
      else words.push(rng.pickZipf(ZH_WORDS));
    }
    return `${words.join("").trim().replace(/\s+/g, " ")}${rng.chance(0.9) ? "。" : "！"}`;
  }
  const words: string[] = [];
  for (let i = rng.int(6, 16); i > 0; i--) {
    const r = rng.next();
    if (r < 0.35) words.push(rng.pick(EN_GLUE));
    else if (r < 0.4) words.push(rng.pick(NAMES));
    else if (r < 0.43) words.push(String(rng.int(2, 999)));
    else words.push(rng.pickZipf(EN_WORDS));
  }
  const text = words.join(" ");
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function logOpening(rng: Random): string {
  const rest = sentence(rng, "en");
  return `${rng.pick(EN_VERBS)} ${rest.charAt(0).toLowerCase()}${rest.slice(1)}`;
}

function title(rng: Random, language: "en" | "zh"): string {
  if (language === "zh") {
    return Array.from({ length: rng.int(2, 4) }, () => rng.pickZipf(ZH_WORDS)).join("");
  }
  const words = Array.from({ length: rng.int(2, 5) }, () => rng.pickZipf(EN_WORDS)).join(" ");
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}`;
}

function codeLines(rng: Random): string[] {
  return Array.from(
    { length: rng.int(1, 6) },
    () =>
      `${rng.pick(["kubectl", "pnpm", "psql", "curl", "git"])} ${rng.pickZipf(EN_WORDS)} --${rng.pickZipf(EN_WORDS)}=${rng.int(1, 99)}`,
  );
}

function pad(n: number): string {
  return String(n).padStart(2, "0");
}
