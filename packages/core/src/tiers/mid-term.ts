import { readdir } from "node:fs/promises";
import { EngramError } from "../errors.js";
import { localDate, localTime } from "../workspace/clock.js";
import { readFrontMatter, writeFrontMatter } from "../workspace/front-matter.js";
import { withWorkspaceLock } from "../workspace/lock.js";
import { THREE_TIER_PATHS } from "../workspace/presets.js";
import { absPath, invalidJson, readJson, readTextIfExists, writeJson, writeText } from "./files.js";
import type { TierHost } from "./host.js";
import { assertName, assertText, assertTitle } from "./names.js";
import { appendToSection, ensureBlankEnd, joinSections, splitSections } from "./sections.js";

/** Where a project stands (`status:` in its `status.md` front matter). */

/**
 * The lock a project's files are written under (`updateProject`, and lifecycle moves of the
 * project), so a move never removes a file that was just updated.
 */
export function projectLock(id: string): string {
  return `tiers:project:${id}`;
}

export type ProjectStatus = "active" | "paused" | "done" | "cancelled";
/** Every project status. */
export const PROJECT_STATUSES: readonly ProjectStatus[] = ["active", "paused", "done", "cancelled"];

/** One task of a project (`tasks.json`). */
export interface ProjectTask {
  id: string;
  title: string;
  done: boolean;
  updatedAt: string;
}

/** A mid-term project, read from `memory/mid-term/projects/<id>/`. */
export interface ProjectMemory {
  id: string;
  title: string;
  status: ProjectStatus;
  /** `YYYY-MM-DD` of the last update. */
  updated: string;
  /** The body of `status.md` (free Markdown). */
  summary: string;
  /** The text of `notes.md` ("" when there is none). */
  notes: string;
  tasks: ProjectTask[];
  /** Workspace-relative folder of the project. */
  dir: string;
}

/** A task to add (no `id`, or a new one; `title` required) or to change (an existing `id`). */
export interface ProjectTaskInput {
  id?: string;
  title?: string;
  done?: boolean;
}

/** Changes to a project; every field is optional, and nothing already written is lost. */
export interface ProjectUpdate {
  status?: ProjectStatus;
  title?: string;
  /** Replaces the body of `status.md`. */
  summary?: string;
  /** Appended to `notes.md` under a `## YYYY-MM-DD HH:MM` heading. */
  notes?: string;
  /** Each added as a `- ` item under `## Decisions` in `notes.md` (promotion candidates). */
  decisions?: string[];
  /** Each added as a `- ` item under `## Lessons` in `notes.md` (promotion candidates). */
  lessons?: string[];
  /** Tasks added or changed, matched by `id`; tasks not named are kept as they are. */
  tasks?: ProjectTaskInput[];
}

/** Mid-term memory: projects with `status.md`, `tasks.json` and `notes.md`. */
export interface MidTermApi {
  /** The project, or null when it does not exist. */
  getProject(id: string): Promise<ProjectMemory | null>;
  /** Applies `update` (creating the project, `active`, when it is new) and returns it after. */
  updateProject(id: string, update: ProjectUpdate): Promise<ProjectMemory>;
  /** Every project with `status: active`, most recently updated first. */
  listActiveProjects(): Promise<ProjectMemory[]>;
  /** Every project, most recently updated first. */
  listProjects(): Promise<ProjectMemory[]>;
}

const PROJECTS = THREE_TIER_PATHS.projectsDir;
const projectDir = (id: string) => `${PROJECTS}/${id}`;
const checkId = (id: unknown) => assertName("project id", id, "website-redesign");

/** The mid-term API over `host`'s workspace. See {@link MidTermApi}. */
export function createMidTermApi(host: TierHost): MidTermApi {
  const ws = host.workspace;

  const read = async (id: string): Promise<ProjectMemory | null> => {
    const dir = projectDir(id);
    const [status, notes, tasks] = await Promise.all([
      readTextIfExists(ws, `${dir}/status.md`),
      readTextIfExists(ws, `${dir}/notes.md`),
      readTasks(ws, `${dir}/tasks.json`),
    ]);
    if (status === null && notes === null && tasks === null) return null;
    const { data, body } = readFrontMatter(status ?? "", `${dir}/status.md`);
    return {
      id,
      title: typeof data.title === "string" && data.title.trim() ? data.title : id,
      status: readStatus(data.status, `${dir}/status.md`),
      updated: typeof data.updated === "string" ? data.updated : "",
      summary: body.trim(),
      notes: notes ?? "",
      tasks: tasks ?? [],
      dir,
    };
  };

  const list = async (): Promise<ProjectMemory[]> => {
    const names = await readdir(absPath(ws, PROJECTS), { withFileTypes: true }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return [];
        throw error;
      },
    );
    const ids = names
      .filter((d) => d.isDirectory() && !d.name.startsWith("."))
      .map((d) => d.name)
      .filter((name) => {
        try {
          return checkId(name) === name;
        } catch {
          return false; // a folder engram could not have created: not a project
        }
      });
    const projects = (await Promise.all(ids.map(read))).filter((p) => p !== null);
    return projects.sort((a, b) =>
      a.updated !== b.updated ? (a.updated < b.updated ? 1 : -1) : a.id < b.id ? -1 : 1,
    );
  };

  return {
    getProject: async (id) => read(checkId(id)),

    async updateProject(id, update) {
      checkId(id);
      const change = checkUpdate(update);
      const dir = projectDir(id);
      return withWorkspaceLock(ws, projectLock(id), async () => {
        const at = host.clock.now();
        const stamp = at.toISOString();
        const written: string[] = [];

        // Files are each replaced atomically, status.md last: its `updated` marks a finished update.
        if (change.tasks) {
          const tasks = (await readTasks(ws, `${dir}/tasks.json`)) ?? [];
          await writeJson(ws, `${dir}/tasks.json`, mergeTasks(tasks, change.tasks, stamp));
        }
        if (change.notes !== undefined || change.decisions || change.lessons) {
          const rel = `${dir}/notes.md`;
          const doc = splitSections((await readTextIfExists(ws, rel)) ?? `# Notes: ${id}\n`);
          for (const d of change.decisions ?? []) appendToSection(doc, "Decisions", `- ${d}`);
          for (const l of change.lessons ?? []) appendToSection(doc, "Lessons", `- ${l}`);
          if (change.notes !== undefined) {
            ensureBlankEnd(doc);
            const lines = ["", ...change.notes.split("\n"), ""];
            doc.sections.push({ title: `${localDate(at)} ${localTime(at)}`, lines });
          }
          await writeText(ws, rel, joinSections(doc));
          written.push(rel);
        }
        const rel = `${dir}/status.md`;
        const existing = await readTextIfExists(ws, rel);
        const { data, body } = readFrontMatter(existing ?? "", rel);
        const title = change.title ?? (typeof data.title === "string" ? data.title : id);
        const status =
          change.status ?? (existing === null ? "active" : readStatus(data.status, rel));
        const next = { ...data, status, title, updated: localDate(at) };
        const newBody =
          change.summary !== undefined
            ? `\n${change.summary}\n`
            : existing === null
              ? `\n# ${title}\n`
              : body;
        await writeText(ws, rel, writeFrontMatter(next, newBody));
        written.push(rel);
        host.noteWritten(...written);
        return (await read(id)) as ProjectMemory;
      });
    },

    listProjects: list,
    async listActiveProjects() {
      return (await list()).filter((p) => p.status === "active");
    },
  };
}

function readStatus(value: unknown, rel: string): ProjectStatus {
  if (value === undefined) return "active";
  if (PROJECT_STATUSES.includes(value as ProjectStatus)) return value as ProjectStatus;
  throw new EngramError(
    "FRONT_MATTER_INVALID",
    `${rel}: status ${JSON.stringify(value)} is not a project status`,
    {
      hint: `set status to one of ${PROJECT_STATUSES.join(", ")}`,
    },
  );
}

async function readTasks(ws: string, rel: string): Promise<ProjectTask[] | null> {
  const data = await readJson(ws, rel, null);
  if (data === null) return null;
  if (!Array.isArray(data)) throw invalidJson(rel, "it must hold a JSON array of tasks");
  return data.map((t, i) => {
    if (t === null || typeof t !== "object" || typeof (t as ProjectTask).id !== "string") {
      throw invalidJson(rel, `task ${i + 1} has no string "id"`);
    }
    const task = t as Partial<ProjectTask>;
    return {
      ...task,
      id: task.id as string,
      title: typeof task.title === "string" ? task.title : "",
      done: task.done === true,
      updatedAt: typeof task.updatedAt === "string" ? task.updatedAt : "",
    };
  });
}

function mergeTasks(
  tasks: ProjectTask[],
  inputs: ProjectTaskInput[],
  stamp: string,
): ProjectTask[] {
  const out = tasks.map((t) => ({ ...t }));
  let next = Math.max(0, ...out.map((t) => Number(/^t(\d+)$/.exec(t.id)?.[1] ?? 0))) + 1;
  for (const input of inputs) {
    const existing = input.id === undefined ? undefined : out.find((t) => t.id === input.id);
    if (existing) {
      if (input.title !== undefined) existing.title = input.title;
      if (input.done !== undefined) existing.done = input.done;
      existing.updatedAt = stamp;
      continue;
    }
    if (input.title === undefined) {
      throw new EngramError("INVALID_ARGUMENT", `task ${input.id ?? "(new)"} has no title`, {
        hint: "give a new task a title; to change an existing task, pass its id",
      });
    }
    const id = input.id ?? `t${next++}`;
    out.push({ id, title: input.title, done: input.done ?? false, updatedAt: stamp });
  }
  return out;
}

/** Validates an update before anything is written: all of it is applied, or none. */
function checkUpdate(update: unknown): ProjectUpdate {
  if (update === null || typeof update !== "object" || Array.isArray(update)) {
    throw new EngramError("INVALID_ARGUMENT", "project update must be an object", {
      hint: 'pass e.g. { status: "done" } or { tasks: [{ title: "Write tests" }] }',
    });
  }
  const u = update as ProjectUpdate;
  const out: ProjectUpdate = {};
  if (u.status !== undefined) {
    if (!PROJECT_STATUSES.includes(u.status)) {
      throw new EngramError(
        "INVALID_ARGUMENT",
        `status ${JSON.stringify(u.status)} is not a project status`,
        {
          hint: `use one of ${PROJECT_STATUSES.join(", ")}`,
        },
      );
    }
    out.status = u.status;
  }
  if (u.title !== undefined) out.title = assertTitle("project title", u.title);
  if (u.summary !== undefined)
    out.summary =
      typeof u.summary === "string" ? u.summary.trim() : assertText("summary", u.summary);
  if (u.notes !== undefined) out.notes = assertText("notes", u.notes);
  for (const key of ["decisions", "lessons"] as const) {
    const items = u[key];
    if (items === undefined) continue;
    if (!Array.isArray(items)) throw listError(key);
    out[key] = items.map((item) => {
      const text = assertText(key.slice(0, -1), item);
      if (text.includes("\n")) throw listError(key);
      return text;
    });
  }
  if (u.tasks !== undefined) {
    if (!Array.isArray(u.tasks)) {
      throw new EngramError("INVALID_ARGUMENT", "tasks must be an array", {
        hint: 'pass e.g. [{ title: "Write tests" }, { id: "t1", done: true }]',
      });
    }
    out.tasks = u.tasks.map((t) => {
      if (t === null || typeof t !== "object") {
        throw new EngramError("INVALID_ARGUMENT", "each task must be an object", {
          hint: 'pass e.g. { title: "Write tests" } or { id: "t1", done: true }',
        });
      }
      const task: ProjectTaskInput = {};
      if (t.id !== undefined) task.id = assertName("task id", t.id, "t1");
      if (t.title !== undefined) task.title = assertTitle("task title", t.title);
      if (t.done !== undefined) {
        if (typeof t.done !== "boolean") {
          throw new EngramError("INVALID_ARGUMENT", "task done must be true or false", {
            hint: "pass done: true to tick a task off",
          });
        }
        task.done = t.done;
      }
      return task;
    });
  }
  return out;
}

function listError(key: string): EngramError {
  return new EngramError("INVALID_ARGUMENT", `${key} must be an array of one-line strings`, {
    hint: `pass e.g. ${key}: ["Use SQLite for the index"]`,
  });
}
