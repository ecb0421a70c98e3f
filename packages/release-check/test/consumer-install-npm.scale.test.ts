import { execFile } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";

const run = promisify(execFile);
const tarballs = inject("tarballs");

/**
 * The README's install, with npm: the packed CLI into an empty folder. npm compiles
 * better-sqlite3 here (its prebuilt binaries cannot be downloaded on this machine), ~1.5 min of
 * CPU, so this runs in `npm run test:scale`; `npm test` installs with pnpm.
 */
describe("the packed CLI installed with npm", () => {
  let dir: string;
  let log: string;
  const engram = (...args: string[]) =>
    run(
      process.execPath,
      [join(dir, "node_modules", "@engram", "cli", "dist", "bin.js"), ...args],
      {
        cwd: dir,
      },
    );

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "engram-npm-consumer-"));
    // The other @engram packages from their tarballs (npm refuses an override of a direct one).
    const overrides = Object.fromEntries(
      Object.entries(tarballs)
        .filter(([name]) => name !== "@engram/cli")
        .map(([name, file]) => [name, `file:${file}`]),
    );
    await writeFile(
      join(dir, "package.json"),
      `${JSON.stringify({ name: "engram-npm-consumer", private: true, overrides }, null, 2)}\n`,
    );
    const { stdout, stderr } = await run(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--loglevel",
        "warn",
        tarballs["@engram/cli"] as string,
      ],
      { cwd: dir, maxBuffer: 64 * 1024 * 1024 },
    );
    log = stdout + stderr;
  }, 1_800_000); // compiling better-sqlite3 on a busy 2-core machine has taken over 10 minutes
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it("installs with no EBADENGINE warning on this Node", () => {
    expect(log).not.toContain("EBADENGINE");
  });

  it("runs init, add and search", async () => {
    const ws = join(dir, "ws");
    await engram("init", "-w", ws);
    await engram("add", "长期记忆存储用户偏好", "-w", ws);
    const { stdout } = await engram("search", "用户偏好", "--json", "-w", ws);
    const { results } = JSON.parse(stdout) as { results: { snippet: string }[] };
    expect(results[0]?.snippet).toContain("用户偏好");
  });
});
