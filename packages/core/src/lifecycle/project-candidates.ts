import type { CollectedEntry } from "./plan.js";
import { readStateJson, STATE_FILES, statePath, writeStateJson } from "./state.js";

/** A collected decision or lesson, with the apply that archived its project. */
export interface StoredProjectCandidate extends CollectedEntry {
  applyId: string;
  /** Set once it has been promoted (or found already in long-term memory). */
  promotedTo?: string;
}

const file = (ws: string) => statePath(ws, STATE_FILES.projectCandidates);

/** Decisions and lessons of archived projects still waiting for promotion. */
export async function projectCandidates(ws: string): Promise<StoredProjectCandidate[]> {
  return (await readStateJson<StoredProjectCandidate[]>(file(ws))) ?? [];
}

/** Keep the entries `items` collected (projects archived by apply `applyId`). */
export async function rememberProjectCandidates(
  ws: string,
  applyId: string,
  items: ReadonlyArray<{ collected?: CollectedEntry[] }>,
): Promise<void> {
  const collected = items.flatMap((i) => i.collected ?? []);
  if (collected.length === 0) return;
  const all = await projectCandidates(ws);
  if (all.some((c) => c.applyId === applyId)) return; // a commit finished twice after a crash
  all.push(...collected.map((c) => ({ ...c, applyId })));
  await writeStateJson(file(ws), all);
}

/** Drop the entries an undone apply collected. */
export async function forgetProjectCandidates(ws: string, applyId: string): Promise<void> {
  const all = await projectCandidates(ws);
  const kept = all.filter((c) => c.applyId !== applyId);
  if (kept.length !== all.length) await writeStateJson(file(ws), kept);
}

/** Mark entries as promoted (by their text) so they are not suggested again. */
export async function markPromoted(
  ws: string,
  texts: ReadonlySet<string>,
  where: string,
): Promise<void> {
  const all = await projectCandidates(ws);
  let changed = false;
  for (const c of all) {
    if (!c.promotedTo && texts.has(c.text)) {
      c.promotedTo = where;
      changed = true;
    }
  }
  if (changed) await writeStateJson(file(ws), all);
}
