import { randomBytes } from "node:crypto";
import {
  copyFile,
  link,
  mkdir,
  open,
  readdir,
  rename,
  rmdir,
  stat,
  unlink,
  utimes,
} from "node:fs/promises";
import path from "node:path";
import { EngramError } from "../errors.js";
import { projectLock } from "../tiers/mid-term.js";
import { syncDir, syncFile } from "../workspace/durable.js";
import { withWorkspaceLock } from "../workspace/lock.js";
import { entryKind, hashOrNull, workspacePath } from "./files.js";
import { blobs } from "./state.js";

/**
 * One reversible change to the workspace. Every step can tell from the disk alone whether it has
 * happened, so a journal of steps can be finished or rolled back after a crash.
 *
 * - `move`: `from` (content `hash`) → `to`, which must not exist (never overwritten).
 * - `put`: the file at `path` goes from content `before` to content `after` (hashes; null means
 *   no file). Contents come from the blob store. `beforeMtimeMs` is the modification time the
 *   file had with `before` (recorded when the apply starts), `afterMtimeMs` the one it gets with
 *   `after` (absent: now), so an undo gives a restored file its old time back.
 * - `mkdir` / `rmdir`: one folder (its parent must exist / it must be empty).
 */
export type Step =
  | { kind: "move"; from: string; to: string; hash: string }
  | {
      kind: "put";
      path: string;
      before: string | null;
      after: string | null;
      beforeMtimeMs?: number;
      afterMtimeMs?: number;
    }
  | { kind: "mkdir"; path: string }
  | { kind: "rmdir"; path: string };

/** Where a step stands on disk. `partial`: a move copied but its source not yet removed. */
export type StepState = "before" | "after" | "partial" | "conflict";

/** Called as steps progress; throwing from it simulates a crash at that point (tests). */
export type StepHook = (event: { step: number; phase: "copied" | "done" }) => void;

/** The step that undoes `step`. */
export function inverse(step: Step): Step {
  switch (step.kind) {
    case "move":
      return { kind: "move", from: step.to, to: step.from, hash: step.hash };
    case "put":
      return {
        kind: "put",
        path: step.path,
        before: step.after,
        after: step.before,
        ...(step.afterMtimeMs !== undefined ? { beforeMtimeMs: step.afterMtimeMs } : {}),
        ...(step.beforeMtimeMs !== undefined ? { afterMtimeMs: step.beforeMtimeMs } : {}),
      };
    case "mkdir":
      return { kind: "rmdir", path: step.path };
    case "rmdir":
      return { kind: "mkdir", path: step.path };
  }
}

/** Workspace paths a step touches (for locks, the index and the audit log). */
export function touched(step: Step): string[] {
  return step.kind === "move" ? [step.from, step.to] : [step.path];
}

/** Where `step` stands on disk. */
export async function stateOf(ws: string, step: Step): Promise<StepState> {
  switch (step.kind) {
    case "move": {
      const [src, dst] = await Promise.all([
        hashOrNull(workspacePath(ws, step.from)),
        hashOrNull(workspacePath(ws, step.to)),
      ]);
      const dstFree = dst === null && (await entryKind(workspacePath(ws, step.to))) === null;
      if (src === step.hash && dstFree) return "before";
      if (dst === step.hash && src === null) {
        return (await entryKind(workspacePath(ws, step.from))) === null ? "after" : "conflict";
      }
      if (dst === step.hash && src === step.hash) return "partial";
      return "conflict";
    }
    case "put": {
      const abs = workspacePath(ws, step.path);
      const current = await hashOrNull(abs);
      const kind = current === null ? await entryKind(abs) : "file";
      if (kind !== null && kind !== "file") return "conflict";
      if (current === step.after) return "after";
      if (current === step.before) return "before";
      return "conflict";
    }
    case "mkdir": {
      const kind = await entryKind(workspacePath(ws, step.path));
      return kind === "dir" ? "after" : kind === null ? "before" : "conflict";
    }
    case "rmdir": {
      const abs = workspacePath(ws, step.path);
      const kind = await entryKind(abs);
      if (kind === null) return "after";
      if (kind !== "dir") return "conflict";
      return (await readdir(abs)).length === 0 ? "before" : "conflict";
    }
  }
}

/**
 * Carry `step` out from state `before` (or finish it from `partial`). Moves copy to a temp file in
 * the target folder, fsync it, link it into place (which fails rather than overwrite), verify the
 * hash and only then remove the source. Writes to a memory file hold that file's append lock, so
 * an agent appending at the same moment is never lost.
 */
export async function runStep(
  ws: string,
  step: Step,
  from: "before" | "partial",
  index: number,
  hook?: StepHook,
): Promise<void> {
  switch (step.kind) {
    case "move":
      await maybeLocked(ws, step.from, async () => {
        const src = workspacePath(ws, step.from);
        const dst = workspacePath(ws, step.to);
        if (from === "before") {
          await placeCopy(src, dst);
          if ((await hashOrNull(dst)) !== step.hash) {
            await unlink(dst).catch(() => {});
            throw conflict(step, `the copy at ${step.to} does not match ${step.from}`);
          }
          hook?.({ step: index, phase: "copied" });
        }
        if ((await hashOrNull(src)) !== step.hash) {
          throw conflict(step, `${step.from} changed while it was being moved`);
        }
        await unlink(src);
        await syncDir(path.dirname(src));
      });
      break;
    case "put":
      await maybeLocked(ws, step.path, async () => {
        const abs = workspacePath(ws, step.path);
        if ((await hashOrNull(abs)) !== step.before) {
          throw conflict(step, `${step.path} changed since the plan was made`);
        }
        if (step.after === null) {
          await unlink(abs);
        } else {
          const content = await blobs.get(ws, step.after);
          if (step.before === null) await placeBytes(content, abs);
          else await replaceBytes(content, abs);
          if (step.afterMtimeMs !== undefined) {
            await utimes(abs, Date.now() / 1000, utimeSeconds(step.afterMtimeMs));
          }
        }
        await syncDir(path.dirname(abs));
      });
      break;
    case "mkdir":
      await mkdir(workspacePath(ws, step.path));
      break;
    case "rmdir":
      await rmdir(workspacePath(ws, step.path));
      break;
  }
  hook?.({ step: index, phase: "done" });
}

/**
 * Complete a step found already done on disk: a `put` killed after its content landed but before
 * its modification time was set has the time of the write, not `afterMtimeMs`. Sets it (under the
 * file's append lock, only while the file still holds `after`); nothing else to do otherwise.
 */
export async function settleStep(ws: string, step: Step): Promise<void> {
  if (step.kind !== "put" || step.after === null || step.afterMtimeMs === undefined) return;
  const mtimeMs = step.afterMtimeMs;
  await maybeLocked(ws, step.path, async () => {
    const abs = workspacePath(ws, step.path);
    if ((await hashOrNull(abs)) === step.after) {
      await utimes(abs, Date.now() / 1000, utimeSeconds(mtimeMs));
    }
  });
}

/**
 * Files engram appends to (daily logs, session files, long-term memory) are changed under their
 * append lock, the one `appendDailyLog`/`appendLongTerm` take, so a concurrent append is never
 * lost; a project's files under the project lock `updateProject` takes. Decisions and the archive
 * are never written to concurrently by engram: no lock needed.
 */
const PROJECT_FILE = /^memory\/mid-term\/projects\/([^/]+)\//;

function maybeLocked(ws: string, rel: string, fn: () => Promise<void>): Promise<void> {
  const project = PROJECT_FILE.exec(rel)?.[1];
  if (project !== undefined) return withWorkspaceLock(ws, projectLock(project), fn);
  const appendable =
    !rel.startsWith("memory/archive/") &&
    !rel.startsWith("memory/mid-term/") &&
    !rel.startsWith("memory/long-term/decisions/");
  return appendable ? withWorkspaceLock(ws, `append:${rel}`, fn) : fn();
}

/** Undo a `partial` step: the copy at the target is removed, the untouched source stays. */
export async function revertPartial(ws: string, step: Step): Promise<void> {
  if (step.kind !== "move") return;
  await unlink(workspacePath(ws, step.to));
}

function conflict(step: Step, why: string): EngramError {
  return new EngramError("LIFECYCLE_CONFLICT", `lifecycle ${step.kind}: ${why}`, {
    hint: "someone changed the workspace during the apply; run `engram lifecycle plan` again",
  });
}

/**
 * Copy `src` to a fresh temp file beside `dst` with the source's access and modification times
 * (a moved file keeps its age: the rules read it, and an undo must give it back), fsync it, then
 * link it in (never overwriting).
 */
async function placeCopy(src: string, dst: string): Promise<void> {
  const tmp = tempBeside(dst);
  await copyFile(src, tmp);
  const times = await stat(src, { bigint: true });
  await utimes(tmp, utimeSeconds(nsToMs(times.atimeNs)), utimeSeconds(nsToMs(times.mtimeNs)));
  await syncFile(tmp);
  await linkInto(tmp, dst);
}

async function placeBytes(content: Buffer, dst: string): Promise<void> {
  const tmp = tempBeside(dst);
  const handle = await open(tmp, "wx");
  try {
    await handle.writeFile(content);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await linkInto(tmp, dst);
}

/**
 * Replace `dst` by `content` at once: a temp file beside it (named so that recovery sweeps it
 * away if the process dies before the rename, which write-file-atomic's names would not allow),
 * fsynced, with `dst`'s permissions, renamed over it.
 */
async function replaceBytes(content: Buffer, dst: string): Promise<void> {
  const tmp = tempBeside(dst);
  const { mode } = await stat(dst);
  const handle = await open(tmp, "wx");
  try {
    await handle.writeFile(content);
    await handle.chmod(mode & 0o7777);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(tmp, dst);
  } catch (error) {
    await unlink(tmp).catch(() => {});
    throw error;
  }
  await syncDir(path.dirname(dst));
}

async function linkInto(tmp: string, dst: string): Promise<void> {
  try {
    await link(tmp, dst);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") {
      throw new EngramError(
        "LIFECYCLE_CONFLICT",
        `${dst} already exists; engram never overwrites it`,
        {
          hint: "run `engram lifecycle plan` again: the new plan picks a free name",
        },
      );
    }
    throw error;
  } finally {
    await unlink(tmp).catch(() => {});
  }
  await syncDir(path.dirname(dst));
}

/** Temp files this module leaves behind only when the process dies mid-copy or mid-write. */
export const TEMP_FILE_RE = /^\..+\.engram-[0-9a-f]{8}\.tmp$/;

function tempBeside(abs: string): string {
  return path.join(
    path.dirname(abs),
    `.${path.basename(abs)}.engram-${randomBytes(4).toString("hex")}.tmp`,
  );
}

/** A file time in nanoseconds as milliseconds, exact to the microsecond. */
export function nsToMs(ns: bigint): number {
  return Number(ns / 1000n) / 1000;
}

/**
 * A time in ms (exact to the microsecond) as the seconds `utimes` takes. A double cannot hold
 * today's time in seconds to the microsecond and libuv truncates to nanoseconds, so a time is
 * aimed at the middle of its microsecond (the file gets exactly that microsecond back); a whole
 * second (archives, checkouts) is given as it is and comes back exact.
 */
function utimeSeconds(ms: number): number {
  const us = Math.round(ms * 1000);
  return us % 1_000_000 === 0 ? us / 1e6 : (us + 0.5) / 1e6;
}
