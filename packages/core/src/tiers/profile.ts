import { EngramError } from "../errors.js";
import { localDate } from "../workspace/clock.js";
import { readFrontMatter, writeFrontMatter } from "../workspace/front-matter.js";
import { withWorkspaceLock } from "../workspace/lock.js";
import { THREE_TIER_PATHS } from "../workspace/presets.js";
import { readTextIfExists, writeText } from "./files.js";
import type { TierHost } from "./host.js";
import { assertTitle } from "./names.js";
import {
  ensureBlankEnd,
  joinSections,
  sectionLines,
  sectionText,
  splitSections,
} from "./sections.js";

/**
 * The user profile, `memory/long-term/user_profile.md`: short facts as front matter
 * (`name: Alice`), longer ones as `## ` sections (`## Preferences`).
 */
export interface UserProfile {
  /** Front matter keys (`updated` is kept by engram). */
  fields: Record<string, unknown>;
  /** Section title → its text. */
  sections: Record<string, string>;
  /** Workspace-relative path of the file. */
  path: string;
}

/** A change to the profile: `null` removes a field or section; others are set or replaced. */
export interface UserProfilePatch {
  fields?: Record<string, string | number | boolean | string[] | null>;
  sections?: Record<string, string | null>;
}

const PROFILE = THREE_TIER_PATHS.userProfile;

/** The profile as it is on disk (empty when the file does not exist). */
export async function readUserProfile(host: TierHost): Promise<UserProfile> {
  const text = await readTextIfExists(host.workspace, PROFILE);
  const { data, body } = readFrontMatter(text ?? "", PROFILE);
  const sections: Record<string, string> = {};
  for (const s of splitSections(body).sections) sections[s.title] = sectionText(s);
  return { fields: data, sections, path: PROFILE };
}

/**
 * Applies `patch` to the profile (creating the file when missing), atomically, and returns it.
 * Sections not named keep their exact text; new sections are added at the end.
 *
 * @throws EngramError `INVALID_ARGUMENT` for a bad key, value or section title;
 * `FRONT_MATTER_INVALID` when the file's front matter does not parse (it is left as it is).
 */
export async function updateUserProfile(
  host: TierHost,
  patch: UserProfilePatch,
): Promise<UserProfile> {
  const { fields, sections } = checkPatch(patch);
  await withWorkspaceLock(host.workspace, `tiers:${PROFILE}`, async () => {
    const text = (await readTextIfExists(host.workspace, PROFILE)) ?? "# User profile\n";
    const { data, body } = readFrontMatter(text, PROFILE);
    const next: Record<string, unknown> = { ...data };
    for (const [key, value] of fields) {
      if (value === null) delete next[key];
      else next[key] = value;
    }
    next.updated = localDate(host.clock.now());
    const doc = splitSections(body);
    for (const [title, value] of sections) {
      const i = doc.sections.findIndex((s) => s.title === title);
      if (value === null) {
        if (i >= 0) doc.sections.splice(i, 1);
      } else if (i >= 0) {
        doc.sections.splice(i, 1, { title, lines: sectionLines(value) });
      } else {
        ensureBlankEnd(doc);
        doc.sections.push({ title, lines: sectionLines(value) });
      }
    }
    await writeText(host.workspace, PROFILE, writeFrontMatter(next, joinSections(doc)));
  });
  host.noteWritten(PROFILE);
  return readUserProfile(host);
}

function checkPatch(patch: unknown): {
  fields: [string, unknown][];
  sections: [string, string | null][];
} {
  if (patch === null || typeof patch !== "object" || Array.isArray(patch)) {
    throw new EngramError("INVALID_ARGUMENT", "profile patch must be an object", {
      hint: 'pass e.g. { fields: { name: "Alice" }, sections: { Preferences: "- dark mode" } }',
    });
  }
  const p = patch as UserProfilePatch;
  const fields = Object.entries(p.fields ?? {}).map(([key, value]): [string, unknown] => {
    if (!/^[\p{L}\p{N}_][\p{L}\p{N}_ .-]*$/u.test(key) || key === "updated") {
      throw new EngramError(
        "INVALID_ARGUMENT",
        `profile field ${JSON.stringify(key)} is not allowed`,
        {
          hint: 'use a name of letters, digits, "_", "-", "." or spaces (not "updated", which engram keeps)',
        },
      );
    }
    const scalar = (v: unknown) =>
      typeof v === "string" ||
      typeof v === "boolean" ||
      (typeof v === "number" && Number.isFinite(v));
    const ok =
      value === null ||
      scalar(value) ||
      (Array.isArray(value) && value.every((v) => typeof v === "string"));
    if (!ok) {
      throw new EngramError("INVALID_ARGUMENT", `profile field ${key}: unsupported value`, {
        hint: "use a string, number, boolean, list of strings, or null to remove the field",
      });
    }
    return [key, value];
  });
  const sections = Object.entries(p.sections ?? {}).map(
    ([title, text]): [string, string | null] => {
      const t = assertTitle("section title", title);
      if (text === null) return [t, null];
      if (typeof text !== "string" || /^##?[ \t]/m.test(text)) {
        throw new EngramError(
          "INVALID_ARGUMENT",
          `profile section ${t}: text must be Markdown without # or ## headings`,
          {
            hint: "use ### for headings inside a section, or pass null to remove it",
          },
        );
      }
      return [t, text];
    },
  );
  return { fields, sections };
}
