import { type ChildProcessByStdio, execFileSync, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdir, realpath, symlink } from "node:fs/promises";
import { join, relative } from "node:path";
import type { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  BIN,
  eventually,
  removeDir,
  stopChild,
  tempDir,
  withoutProviderEnv,
  writeFiles,
} from "./helpers.js";

/**
 * `engram ui` as users run it (the built CLI in a child process): the first line is the URL
 * (`--json`: `{"url": …}`), the page answers with the token only, and a path that escapes the
 * workspace is refused before anything is opened — proven with named pipes, which block whoever
 * opens them for reading: had the server opened one, it would never answer.
 */
describe("engram ui (built CLI)", () => {
  let dir: string;
  let ws: string;
  let outside: string;
  let child: ChildProcessByStdio<null, Readable, Readable>;
  let url: URL;
  let stderr = "";

  beforeAll(async () => {
    dir = await realpath(await tempDir("engram-ui-e2e-"));
    ws = join(dir, "ws");
    outside = join(dir, "outside");
    await writeFiles(ws, {
      "MEMORY.md": "# Long-term Memory\n\n## 2026-01-01 09:00\n\nLin prefers advisory locks.\n",
      "memory/2026-01-02.md": "# 2026-01-02\n\n## 10:00\n\nShipped the 用户偏好 page.\n",
    });
    await mkdir(outside);
    execFileSync("mkfifo", [join(outside, "pipe.md")]);
    execFileSync("mkfifo", [join(ws, "memory", "fifo.md")]);
    await symlink(join(outside, "pipe.md"), join(ws, "memory", "pipe-link.md"));
    await symlink(outside, join(ws, "memory", "outside-dir"));

    child = spawn(process.execPath, [BIN, "ui", "--json", "--no-open", "--workspace", ws], {
      stdio: ["ignore", "pipe", "pipe"],
      env: withoutProviderEnv(process.env),
    });
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
    });
    const first = await eventually(
      async () => stdout.split("\n")[0] && stdout.includes("\n"),
      30_000,
    );
    if (!first) throw new Error(`engram ui printed no URL within 30 s; stderr: ${stderr}`);
    url = new URL(JSON.parse(stdout.split("\n")[0] as string).url);
  }, 60_000);

  afterAll(async () => {
    await stopChild(child);
    await removeDir(dir);
  });

  it("prints {url} with the token on its first line, listening on 127.0.0.1", () => {
    expect(url.hostname).toBe("127.0.0.1");
    expect(url.pathname).toBe("/timeline");
    expect(url.searchParams.get("token")).toMatch(/^[\w-]{40,}$/);
  });

  it("answers with the token and refuses without it", async () => {
    const token = url.searchParams.get("token") as string;
    const api = new URL("/api/search?q=advisory&scope=main", url);
    expect((await fetch(api)).status).toBe(401);
    const res = await fetch(api, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { results: Array<{ path: string }> }).results[0]?.path).toBe(
      "MEMORY.md",
    );
  });

  it("refuses `../`, symlink and non-file escapes with 400 without opening anything", async () => {
    const token = url.searchParams.get("token") as string;
    const attempts = [
      relative(ws, join(outside, "pipe.md")),
      join(outside, "pipe.md"),
      "memory/pipe-link.md",
      "memory/outside-dir/pipe.md",
      "memory/fifo.md",
    ];
    for (const path of attempts) {
      const res = await fetch(
        new URL(`/api/file?scope=main&path=${encodeURIComponent(path)}`, url),
        {
          headers: { authorization: `Bearer ${token}` },
          signal: AbortSignal.timeout(20_000),
        },
      );
      expect(res.status, path).toBe(400);
      const body = (await res.json()) as { error: { code: string } };
      expect(["PATH_OUTSIDE_WORKSPACE", "PATH_NOT_ALLOWED"]).toContain(body.error.code);
    }
    // Still serving: nothing is stuck on a pipe.
    const again = await fetch(new URL("/api/status", url), {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(again.status).toBe(200);
  });

  it("stops on SIGTERM with exit code 0", async () => {
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    const [code, signal] = await exited;
    expect({ code, signal }, stderr).toEqual({ code: 0, signal: null });
  });
});
