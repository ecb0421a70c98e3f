import { createRequire } from "node:module";
import { frontMatterEnd } from "../chunking/front-matter.js";
import { EngramError } from "../errors.js";

/**
 * The YAML parser, loaded on the first file that has front matter: it is ~70 modules, and most
 * commands read no front matter at all.
 */
let yamlModule: typeof import("yaml") | undefined;
function yaml(): typeof import("yaml") {
  yamlModule ??= createRequire(import.meta.url)("yaml") as typeof import("yaml");
  return yamlModule;
}

/** A Markdown file split into its YAML front matter and the rest. */
export interface FrontMatterDocument {
  /** The front matter's keys (an empty object when the file has none). */
  data: Record<string, unknown>;
  /** The text after the front matter (the whole text when there is none). */
  body: string;
  /** Number of lines the front matter block takes, delimiters included (0 when none). */
  lines: number;
}

/**
 * Split `text` into YAML front matter (`---` on the first line, closed by `---` or `...`) and body.
 * A file without front matter gives `{ data: {}, body: text, lines: 0 }`.
 *
 * @throws EngramError `FRONT_MATTER_INVALID` when the block is not YAML or not a mapping; `source`
 * names the file in the message.
 */
export function readFrontMatter(text: string, source = "the file"): FrontMatterDocument {
  const all = text.split("\n");
  const end = frontMatterEnd(all.map((l) => l.replace(/\r$/, "")));
  if (end < 0) return { data: {}, body: text, lines: 0 };
  const yamlText = all.slice(1, end).join("\n");
  let data: unknown;
  try {
    data = yamlText.trim() === "" ? {} : yaml().parse(yamlText);
  } catch (error) {
    throw new EngramError(
      "FRONT_MATTER_INVALID",
      `${source}: front matter is not valid YAML (${(error as Error).message.split("\n")[0]})`,
      { hint: "fix the block between the --- lines at the top of the file, or remove it" },
    );
  }
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    throw new EngramError(
      "FRONT_MATTER_INVALID",
      `${source}: front matter is not a key: value map`,
      {
        hint: "write front matter as lines of `key: value` between --- lines",
      },
    );
  }
  return {
    data: data as Record<string, unknown>,
    body: all.slice(end + 1).join("\n"),
    lines: end + 1,
  };
}

/** `body` with `data` as its front matter (no block when `data` is empty). */
export function writeFrontMatter(data: Readonly<Record<string, unknown>>, body: string): string {
  if (Object.keys(data).length === 0) return body;
  return `---\n${yaml().stringify(data).trimEnd()}\n---\n${body}`;
}
