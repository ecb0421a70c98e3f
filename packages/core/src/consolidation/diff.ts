import { createTwoFilesPatch } from "diff";

/** A unified diff of one file (`a/path` → `b/path`; `/dev/null` for a created or removed file). */
export function unifiedDiff(path: string, before: string | null, after: string | null): string {
  return createTwoFilesPatch(
    before === null ? "/dev/null" : `a/${path}`,
    after === null ? "/dev/null" : `b/${path}`,
    before ?? "",
    after ?? "",
    undefined,
    undefined,
    { context: 3 },
  );
}
