import * as v from "valibot";
import { EngramError } from "../errors.js";
import type { Memory } from "../memory.js";
import type { MemoryScope } from "../privacy/scope-sources.js";
import { parseSealed } from "../sealing/format.js";
import { openSealedText } from "../sealing/seal-file.js";
import { hasSealedSpans, maskSealedSpans, unsealSpansText } from "../sealing/spans.js";
import type { Tier } from "../tier.js";
import {
  isPersonalPath,
  isSensitiveFile,
  privateSpans,
  redactPrivate,
} from "../workspace/privacy.js";
import { DEFAULT_MAX_FILE_BYTES, type MemoryFileSlice, readUtf8 } from "../workspace/read.js";
import { resolveMemoryPath } from "../workspace/sandbox.js";
import { createTierResolver } from "../workspace/tiers.js";
import { expects } from "./tool-schema.js";

/**
 * Who the agent tools serve, and whether sensitive long-term memory is open to them:
 *
 * - `scope: "group"`: a shared conversation. `memory_search` searches the group scope;
 *   `memory_get` refuses personal, sensitive and sealed files and shows private spans as
 *   `[private]`.
 * - `scope: "main"` (default): the user's own session. When the config says
 *   `privacy.unlock: "required"`, sensitive long-term content (sealed files, `sensitive: true`
 *   long-term files, private spans in long-term files) is withheld — snippets and lines replaced
 *   by a marker saying what was withheld — until the session is unlocked: `unlocked: true` (e.g.
 *   `engram mcp --unlock`), or a call with `unlock: true` that `grantUnlock` grants (the host
 *   asks its user). Without `grantUnlock`, a model can never unlock by itself.
 */
export interface ToolPrivacyOptions {
  scope?: MemoryScope;
  /** The session is unlocked from the start. */
  unlocked?: boolean;
  /** Asked when a call passes `unlock: true`; true unlocks the rest of the session. */
  grantUnlock?: (request: { tool: string; path?: string }) => boolean | Promise<boolean>;
}

/** What the privacy guard reads of a memory (a `Memory` has it all; each part is optional). */
export interface ToolPrivacyHost {
  workspace?: string;
  config?: {
    privacy?: { unlock?: string };
    extraPaths?: readonly string[];
    sync?: { maxFileBytes?: number };
    defaultTier?: Tier;
  };
  sealing?: Pick<Memory["sealing"], "key">;
  layout?: Pick<Memory["layout"], "personalFiles" | "tiers">;
}

/** The `unlock` argument of the reading tools (granted only by the host: see {@link ToolPrivacyOptions}). */
export const unlockArg = v.optional(
  v.pipe(
    v.boolean(),
    v.description(
      "Ask the host to show sensitive long-term memory withheld from this session (the host decides).",
    ),
    v.examples([true]),
    expects("true or false"),
  ),
);

/** The `withheld` field of a result: what was held back, when anything was. */
export const withheldField = v.optional(
  v.pipe(
    v.string(),
    v.description("What was held back (sensitive long-term memory of a locked session)."),
  ),
);

/** Said in place of withheld text. */
export function withheldMarker(what: string): string {
  return `[withheld: ${what}; the host must unlock this session to show it]`;
}

/** One session's privacy state for the tools. */
export class ToolPrivacy {
  readonly scope: MemoryScope;
  #unlocked: boolean;
  readonly #grant: ToolPrivacyOptions["grantUnlock"];
  readonly #host: ToolPrivacyHost;

  constructor(host: ToolPrivacyHost, options: ToolPrivacyOptions = {}) {
    this.#host = host;
    this.scope = options.scope ?? "main";
    this.#unlocked = options.unlocked === true;
    this.#grant = options.grantUnlock;
  }

  /** True when sensitive long-term content is withheld from this session now. */
  locked(): boolean {
    if (this.scope !== "main") return true;
    return this.#host.config?.privacy?.unlock === "required" && !this.#unlocked;
  }

  /**
   * A call asked for `unlock: true`: asks the host's `grantUnlock` (when there is one and the
   * session is locked); a grant unlocks the rest of the session. Returns whether it is unlocked.
   */
  async requestUnlock(tool: string, path?: string): Promise<boolean> {
    if (this.scope !== "main" || !this.locked()) return !this.locked();
    if (this.#grant && (await this.#grant({ tool, ...(path ? { path } : {}) }))) {
      this.#unlocked = true;
    }
    return !this.locked();
  }

  /**
   * Search hits as the session may see them: in a locked main scope, a long-term hit from a
   * sealed or sensitive file has its snippet withheld, and one showing a private span has the span
   * redacted; `withheld` says what was held back.
   */
  async guardHits<
    H extends { path: string; startLine: number; endLine: number; snippet: string; tier: Tier },
  >(hits: readonly H[]): Promise<Array<H & { withheld?: string }>> {
    if (this.scope !== "main" || !hits.some((h) => h.tier === "long")) return [...hits];
    if (!this.locked()) return [...hits];
    const texts = new Map<string, string | null>();
    const out: Array<H & { withheld?: string }> = [];
    for (const hit of hits) {
      if (hit.tier !== "long") {
        out.push(hit);
        continue;
      }
      if (!texts.has(hit.path)) texts.set(hit.path, await this.#read(hit.path));
      const text = texts.get(hit.path) ?? null;
      const what = text === null ? "an unreadable long-term file" : sensitiveWhole(text);
      if (what) {
        out.push({ ...hit, snippet: withheldMarker(what), withheld: what });
        continue;
      }
      const view = publicView(text as string, hit.startLine, hit.endLine);
      out.push(
        view === null
          ? hit
          : { ...hit, snippet: view, withheld: "private spans of long-term memory" },
      );
    }
    return out;
  }

  /**
   * A `memory_get` slice as the session may see it: group scope refuses what is not shared and
   * redacts private spans; a locked main scope withholds sensitive long-term files and redacts
   * their private spans; an open main scope shows a sealed file's plaintext, and private spans
   * sealed in place opened, when the key is there (`[sealed]` without it).
   *
   * @throws EngramError `PATH_NOT_ALLOWED` in the group scope for a personal, sensitive or sealed file.
   */
  async guardSlice(
    slice: MemoryFileSlice,
    tier: Tier,
    from: number | undefined,
    lines: number | undefined,
  ): Promise<MemoryFileSlice & { withheld?: string }> {
    const raw = await this.#read(slice.path);
    if (this.scope === "group") {
      if (
        raw === null ||
        isPersonalPath(slice.path, this.#host.layout?.personalFiles) ||
        sensitiveWhole(raw)
      ) {
        throw new EngramError(
          "PATH_NOT_ALLOWED",
          `${slice.path} is not shared in a group conversation`,
          {
            hint: "read it in the user's own (main) session",
          },
        );
      }
      return { ...slice, text: publicLines(raw, slice.startLine, slice.endLine) ?? slice.text };
    }
    if (raw === null) return slice;
    const isLong = tier === "long";
    const locked = isLong && this.locked();
    const sealed = parseSealed(raw);
    if (locked) {
      const what = sensitiveWhole(raw);
      if (what) return { ...slice, text: withheldMarker(what), withheld: what };
      const view = publicView(raw, slice.startLine, slice.endLine);
      return view === null
        ? slice
        : { ...slice, text: view, withheld: "private spans of long-term memory" };
    }
    if (!sealed) return hasSealedSpans(raw) ? this.#openSpans(raw, slice, from, lines) : slice;
    const key = await this.#host.sealing?.key().catch(() => null);
    if (!key)
      return {
        ...slice,
        withheld: "sealed: no key in this process (ENGRAM_KEY / ENGRAM_KEY_FILE)",
      };
    const plain = await openSealedText(raw, key, slice.path);
    return sliceOf(slice.path, plain ?? "", from, lines);
  }

  /**
   * A main-scope slice of a file with private spans sealed in place: opened with the key (the
   * spans keep their line numbers, so the slice is the same lines), else each shown as `[sealed]`.
   */
  async #openSpans(
    raw: string,
    slice: MemoryFileSlice,
    from: number | undefined,
    lines: number | undefined,
  ): Promise<MemoryFileSlice & { withheld?: string }> {
    const key = await this.#host.sealing?.key().catch(() => null);
    const opened = key ? await unsealSpansText(raw, key, slice.path).catch(() => null) : null;
    if (opened) return sliceOf(slice.path, opened.text, from, lines);
    return {
      ...sliceOf(slice.path, maskSealedSpans(raw), from, lines),
      withheld: key
        ? `sealed private spans: sealed with another key than ${key.source}'s`
        : "sealed private spans: no key in this process (ENGRAM_KEY / ENGRAM_KEY_FILE)",
    };
  }

  async #read(rel: string): Promise<string | null> {
    const { workspace, config } = this.#host;
    if (!workspace) return null;
    try {
      const file = await resolveMemoryPath(workspace, rel, {
        extraPaths: config?.extraPaths ?? [],
      });
      const maxBytes = config?.sync?.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
      return (await readUtf8(file.absPath, { maxBytes })).text;
    } catch {
      return null;
    }
  }
}

/** What makes a whole file sensitive, or undefined. */
function sensitiveWhole(text: string): string | undefined {
  if (parseSealed(text)) return "a sealed long-term file";
  if (isSensitiveFile(text)) return "a long-term file marked sensitive";
  return undefined;
}

/** Lines `start..end` with private spans redacted, or null when they hold none. */
function publicView(text: string, start: number, end: number): string | null {
  const spans = privateSpans(text.replace(/\r\n?/g, "\n"));
  if (!spans.some((s) => s.startLine <= end && start <= s.endLine)) return null;
  return publicLines(text, start, end);
}

function publicLines(text: string, start: number, end: number): string | null {
  if (end < start) return "";
  return redactPrivate(text.replace(/\r\n?/g, "\n"))
    .split("\n")
    .slice(start - 1, end)
    .join("\n");
}

/** A slice of plaintext as `memory_get` cuts one from a file. */
function sliceOf(
  path: string,
  text: string,
  from = 1,
  count = Number.POSITIVE_INFINITY,
): MemoryFileSlice {
  const all = text === "" ? [] : text.replace(/\r\n?/g, "\n").split("\n");
  if (all[all.length - 1] === "") all.pop();
  const totalLines = all.length;
  const endLine = Math.min(totalLines, from + count - 1);
  return {
    path,
    text: from > totalLines ? "" : all.slice(from - 1, endLine).join("\n"),
    startLine: from,
    endLine: from > totalLines ? from - 1 : endLine,
    totalLines,
  };
}

/**
 * `memory` as the tools of a session see it: searches in the session's scope with hits guarded,
 * reads guarded (see {@link ToolPrivacy}); writes as they are.
 */
export function guardedToolsHost<
  M extends Pick<Memory, "search" | "get" | "appendDaily" | "appendLongTerm"> & ToolPrivacyHost,
>(
  memory: M,
  privacy: ToolPrivacy,
): Pick<Memory, "search" | "get" | "appendDaily" | "appendLongTerm"> {
  const tierOf = memory.layout
    ? createTierResolver(memory.layout.tiers, memory.config?.defaultTier)
    : () => "long" as const;
  return {
    search: async (query, options = {}) => {
      const response = await memory.search(query, { ...options, scope: privacy.scope });
      return { ...response, results: await privacy.guardHits(response.results) };
    },
    get: async (path, options = {}) => {
      const slice = await memory.get(path, options);
      return privacy.guardSlice(slice, tierOf(slice.path), options.from, options.lines);
    },
    appendDaily: (text, options) => memory.appendDaily(text, options),
    appendLongTerm: (text, options) => memory.appendLongTerm(text, options),
  };
}
