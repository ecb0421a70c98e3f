import { EngramError } from "../errors.js";
import { MEMORY_DIR, MEMORY_FILE } from "./layout.js";
import { DEFAULT_TIER_MAP, type TierMap } from "./tiers.js";

/** Names of the built-in workspace layouts. */
export const LAYOUT_PRESET_NAMES = ["openclaw", "three-tier", "logs", "nanobot"] as const;

/** A built-in workspace layout's name. */
export type LayoutPresetName = (typeof LAYOUT_PRESET_NAMES)[number];

/** A file `engram init --layout` creates when it is missing (never overwritten). */
export interface SkeletonFile {
  /** Workspace-relative POSIX path. */
  path: string;
  content: string;
}

/**
 * A workspace layout users already have: where each tier lives (the tier map), where daily logs
 * are written and found (retention looks there), the curated long-term file, and the skeleton
 * `engram init --layout <name>` creates.
 */
export interface LayoutPreset {
  name: LayoutPresetName;
  /** One line saying which layout this is. */
  description: string;
  tiers: TierMap;
  /** Folder (workspace-relative) holding the `YYYY-MM-DD.md` daily logs. */
  dailyLogDir: string;
  /** The curated long-term memory file (workspace-relative). */
  longTermFile: string;
  skeleton: SkeletonFile[];
}

/** The three-tier tree's files, relative to the workspace (shared with the lifecycle rules). */
export const THREE_TIER_PATHS = Object.freeze({
  shortTermDir: `${MEMORY_DIR}/short-term`,
  currentSession: `${MEMORY_DIR}/short-term/current-session.md`,
  kv: `${MEMORY_DIR}/short-term/kv.json`,
  sessionsDir: `${MEMORY_DIR}/short-term/sessions`,
  projectsDir: `${MEMORY_DIR}/mid-term/projects`,
  userProfile: `${MEMORY_DIR}/long-term/user_profile.md`,
  knowledgeDir: `${MEMORY_DIR}/long-term/knowledge_base`,
  decisionsDir: `${MEMORY_DIR}/long-term/decisions`,
  archiveDir: `${MEMORY_DIR}/archive`,
});

const MEMORY_MD = `# Long-term Memory

Curated facts, preferences and decisions worth keeping.
`;

/** A `.gitkeep` keeps an empty folder in version control; it is not Markdown, so never indexed. */
const keep = (dir: string): SkeletonFile => ({ path: `${dir}/.gitkeep`, content: "" });

const openclaw: LayoutPreset = {
  name: "openclaw",
  description: "OpenClaw / nanobot: MEMORY.md plus one daily log per day in memory/YYYY-MM-DD.md",
  tiers: {
    short: [`${MEMORY_DIR}/*.md`],
    mid: [],
    long: [MEMORY_FILE],
    archive: [`${MEMORY_DIR}/archive/**`, `${MEMORY_DIR}/dreams/**`],
  },
  dailyLogDir: MEMORY_DIR,
  longTermFile: MEMORY_FILE,
  skeleton: [
    {
      path: MEMORY_FILE,
      content: `${MEMORY_MD}Daily notes go to memory/YYYY-MM-DD.md.\n`,
    },
    keep(`${MEMORY_DIR}/archive`),
  ],
};

const threeTier: LayoutPreset = {
  name: "three-tier",
  description:
    "short-term / mid-term / long-term / archive folders under memory/, plus MEMORY.md and daily logs",
  tiers: {
    short: [...DEFAULT_TIER_MAP.short],
    mid: [...DEFAULT_TIER_MAP.mid],
    long: [...DEFAULT_TIER_MAP.long],
    archive: [...DEFAULT_TIER_MAP.archive],
  },
  dailyLogDir: MEMORY_DIR,
  longTermFile: MEMORY_FILE,
  skeleton: [
    { path: MEMORY_FILE, content: MEMORY_MD },
    {
      path: THREE_TIER_PATHS.currentSession,
      content: "# Current session\n\n",
    },
    keep(THREE_TIER_PATHS.sessionsDir),
    keep(THREE_TIER_PATHS.projectsDir),
    {
      path: THREE_TIER_PATHS.userProfile,
      content: "# User profile\n\n",
    },
    keep(THREE_TIER_PATHS.knowledgeDir),
    keep(THREE_TIER_PATHS.decisionsDir),
    keep(`${THREE_TIER_PATHS.archiveDir}/sessions`),
    keep(`${THREE_TIER_PATHS.archiveDir}/projects`),
    keep(`${THREE_TIER_PATHS.archiveDir}/daily`),
  ],
};

const logs: LayoutPreset = {
  name: "logs",
  description:
    "Bee: one conversation log per day in memory/logs/, long-term memory in memory/long-term.md",
  tiers: {
    short: [`${MEMORY_DIR}/logs/**`],
    mid: [],
    long: [`${MEMORY_DIR}/long-term.md`],
    archive: [`${MEMORY_DIR}/archive/**`, `${MEMORY_DIR}/dreams/**`],
  },
  dailyLogDir: `${MEMORY_DIR}/logs`,
  longTermFile: `${MEMORY_DIR}/long-term.md`,
  skeleton: [
    { path: `${MEMORY_DIR}/long-term.md`, content: MEMORY_MD },
    keep(`${MEMORY_DIR}/logs`),
    keep(`${MEMORY_DIR}/archive`),
  ],
};

const nanobot: LayoutPreset = {
  name: "nanobot",
  description:
    "nanobot: long-term memory in memory/MEMORY.md, one daily log per day in memory/YYYY-MM-DD.md",
  tiers: {
    short: [`${MEMORY_DIR}/*.md`],
    mid: [],
    // Any MEMORY.md is long-term whatever the globs say (see createTierResolver); named anyway.
    long: [`${MEMORY_DIR}/${MEMORY_FILE}`],
    archive: [`${MEMORY_DIR}/archive/**`],
  },
  dailyLogDir: MEMORY_DIR,
  longTermFile: `${MEMORY_DIR}/${MEMORY_FILE}`,
  skeleton: [
    {
      path: `${MEMORY_DIR}/${MEMORY_FILE}`,
      content: `${MEMORY_MD}Daily notes go to memory/YYYY-MM-DD.md.\n`,
    },
    keep(`${MEMORY_DIR}/archive`),
  ],
};

/** The built-in layouts by name. Read-only: copy a preset (see {@link layoutPreset}) to change it. */
export const LAYOUT_PRESETS: Readonly<Record<LayoutPresetName, Readonly<LayoutPreset>>> =
  Object.freeze({ openclaw, "three-tier": threeTier, logs, nanobot });

/** True when `name` is a built-in layout's name. */
export function isLayoutPresetName(name: unknown): name is LayoutPresetName {
  return typeof name === "string" && (LAYOUT_PRESET_NAMES as readonly string[]).includes(name);
}

/**
 * A deep copy of the built-in layout `name` (callers may change it freely).
 *
 * @throws EngramError `INVALID_ARGUMENT` when no layout has that name.
 */
export function layoutPreset(name: string): LayoutPreset {
  if (!isLayoutPresetName(name)) {
    throw new EngramError("INVALID_ARGUMENT", `unknown layout "${String(name)}"`, {
      hint: `use one of ${LAYOUT_PRESET_NAMES.join(", ")}`,
    });
  }
  return structuredClone(LAYOUT_PRESETS[name]) as LayoutPreset;
}

/** The layout a workspace runs with, after its config is applied. */
export interface ResolvedLayout {
  /** The preset the config names, or null (the default layout of the architecture doc). */
  name: LayoutPresetName | null;
  /** The preset's tier map (or the default one) with the config's `tiers` laid over it, per tier. */
  tiers: TierMap;
  dailyLogDir: string;
  longTermFile: string;
  /**
   * Curated personal files that never leave the main scope (group context and group search skip
   * them whole): `MEMORY.md`, the layout's long-term file and the user profile. Any other file
   * named `MEMORY.md` is personal too (see `isPersonalPath`).
   */
  personalFiles: string[];
}

/**
 * Resolve a workspace's layout from its config: `layout` picks a preset (default: the layout of
 * the architecture doc — daily logs in `memory/`, `MEMORY.md`, the three-tier folders), and every
 * tier named in `tiers` replaces that tier's globs.
 *
 * @throws EngramError `INVALID_ARGUMENT` for an unknown layout name.
 */
export function resolveLayout(config: {
  layout?: string | undefined;
  tiers?: Partial<Record<keyof TierMap, readonly string[]>> | undefined;
}): ResolvedLayout {
  const preset = config.layout === undefined ? null : layoutPreset(config.layout);
  const base: TierMap = preset?.tiers ?? {
    short: [...DEFAULT_TIER_MAP.short],
    mid: [...DEFAULT_TIER_MAP.mid],
    long: [...DEFAULT_TIER_MAP.long],
    archive: [...DEFAULT_TIER_MAP.archive],
  };
  const tiers = { ...base };
  for (const [tier, globs] of Object.entries(config.tiers ?? {})) {
    if (globs !== undefined) tiers[tier as keyof TierMap] = [...globs];
  }
  const longTermFile = preset?.longTermFile ?? MEMORY_FILE;
  return {
    name: preset?.name ?? null,
    tiers,
    dailyLogDir: preset?.dailyLogDir ?? MEMORY_DIR,
    longTermFile,
    personalFiles: [...new Set([MEMORY_FILE, longTermFile, THREE_TIER_PATHS.userProfile])],
  };
}
