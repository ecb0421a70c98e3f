/**
 * A unified diff of one file (`a/path` → `b/path`; `/dev/null` for a created or removed file),
 * by the `diff` package (loaded on first use: only plans need it).
 */
export async function unifiedDiff(
  path: string,
  before: string | null,
  after: string | null,
): Promise<string> {
  const { createTwoFilesPatch } = await import("diff");
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
