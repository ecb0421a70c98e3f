import { EngramError } from "../errors.js";
import { hashOrNull, workspacePath } from "../lifecycle/files.js";
import type { LifecycleHost } from "../lifecycle/host.js";
import { promoteTarget } from "../lifecycle/promote.js";
import { localDate, localTime } from "../workspace/clock.js";
import { readCurated } from "./curated.js";
import { recallGuard } from "./guard.js";
import { STATE_FILE } from "./paths.js";
import { assemble, build } from "./plan.js";
import { blobsOf } from "./plan-contents.js";
import type { ConsolidationPlan } from "./types.js";

/**
 * The part of a shown plan a person approved: only the operations `ids` (`op-1`, …), the others
 * listed as refused (`not-approved`), with the diffs, the recall guard and the report worked out
 * again for that subset. The model is not asked again, and the pass still records the notes it
 * read. Apply the result with `applyConsolidation({ plan })`.
 *
 * @throws EngramError `INVALID_ARGUMENT` for an id the plan does not hold; `LIFECYCLE_CONFLICT`
 * when a file the plan read changed since (plan again).
 */
export async function selectOperations(
  host: LifecycleHost,
  plan: ConsolidationPlan,
  ids: readonly string[],
): Promise<ConsolidationPlan> {
  const known = new Set(plan.operations.map((o) => o.id));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length) {
    throw new EngramError("INVALID_ARGUMENT", `the plan has no operation ${unknown.join(", ")}`, {
      hint: `choose among ${[...known].join(", ") || "(none)"}`,
    });
  }
  for (const [file, hash] of Object.entries(plan.basis)) {
    if ((await hashOrNull(workspacePath(host.workspace, file))) !== hash) {
      throw new EngramError("LIFECYCLE_CONFLICT", `${file} changed since the plan was made`, {
        hint: "plan the pass again and approve its operations",
      });
    }
  }
  const wanted = new Set(ids);
  const chosen = plan.operations.filter((o) => wanted.has(o.id));
  const left = plan.operations.filter((o) => !wanted.has(o.id));
  const curated = new Map((await readCurated(host)).map((f) => [f.path, f]));
  const now = new Date(plan.createdAt);
  const defaultFile = host.config.consolidation.file ?? promoteTarget(host);
  const built = await build(host.workspace, chosen, curated, defaultFile, {
    date: localDate(now),
    time: localTime(now),
    passId: plan.passId,
  });
  const narrowed: ConsolidationPlan = {
    ...plan,
    operations: built.operations,
    refused: [
      ...plan.refused,
      ...left.map((operation) => ({
        operation,
        code: "not-approved" as const,
        why: "left out when the plan was applied",
      })),
    ],
    guard: await recallGuard(host, built.affected, built.contents),
  };
  const state = blobsOf(plan).get(STATE_FILE);
  return assemble(host, narrowed, built, {
    now,
    state: state ?? null,
    stateChanged: state !== undefined,
  });
}
