import { mkdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import type { SearchResponse, SyncReport } from "@engram/core";
import { afterAll, describe, expect, it } from "vitest";
import { engram, NEVER_SHOWN, okJson, type Run } from "./support/cli.js";
import { record } from "./support/figures.js";
import { random } from "./support/seed.js";
import { removeTemps, tempDir, tree, writeFiles } from "./support/workspace.js";

afterAll(removeTemps);

const MB = 1024 * 1024;

/** A command met bad input: it ended by itself, with 0 or a usage/failure code, and said nothing raw. */
function expectClean(run: Run, what: string): void {
  expect(run.signal, `${what}: killed by ${run.signal}`).toBeNull();
  expect([0, 1, 2], `${what}: exit ${run.code}\n${run.stderr}`).toContain(run.code);
  expect(run.stderr, what).not.toMatch(NEVER_SHOWN);
}

async function paths(ws: string, query: string): Promise<string[]> {
  const response = await okJson<SearchResponse>([
    "search",
    query,
    "--no-sync",
    "--mode",
    "keyword",
    "--min-score",
    "0",
    "-w",
    ws,
  ]);
  return response.results.map((r) => r.path);
}

/**
 * A corpus of bad input — not UTF-8, 50 MB, a 5 MB single line, binary named `.md`, odd names,
 * symbolic links out of the workspace, broken configs, paths that try to leave — against the
 * built CLI. Each gets a clear error or is skipped with a warning: never a crash, never a raw
 * error, and nothing is ever written outside the workspace.
 */
describe("bad input", () => {
  it("files: skipped with a warning or indexed, never a crash; nothing leaves the workspace", async () => {
    const rnd = random("bad input files");
    const root = await tempDir();
    const ws = join(root, "ws");
    const outside = join(root, "outside");
    await writeFiles(outside, {
      "secret.md": "# Secret\n\noutsidesecret token that must never be indexed\n",
      "dir/inner.md": "# Inner\n\noutsideinner token\n",
    });
    const binary = Buffer.alloc(64 * 1024);
    for (let i = 0; i < binary.length; i++) binary[i] = rnd.int(0, 255);
    binary[10] = 0;
    const oddNames = [
      "memory/notes/with space.md",
      "memory/notes/中文 笔记.md",
      "memory/notes/emoji 🚀.md",
      "memory/notes/-rf.md",
      "memory/notes/#hash?%&.md",
      "memory/notes/back\\slash.md",
      "memory/notes/new\nline.md",
      `memory/notes/${"long".repeat(60)}.md`,
      "memory/notes/UPPER.MD",
    ];
    const files: Record<string, string | Buffer> = {
      "MEMORY.md": "# Memory\n\n部署窗口是周二\n",
      "memory/latin1.md": Buffer.from("# Caf\xe9\n\nr\xe9sum\xe9 latin1token\n", "latin1"),
      "memory/binary.md": binary,
      "memory/huge.md": `# Huge\n\nhugetoken\n${"filler line of a very large file\n".repeat((50 * MB) / 33)}`,
      "memory/one-line.md": `needleoneline ${"word ".repeat(MB)}`,
      "memory/empty.md": "",
      "memory/bom.md": "\uFEFF# BOM\n\nbomtoken\n",
      "memory/crlf.md": "# CRLF\r\n\r\ncrlftoken\r\n",
    };
    oddNames.forEach((name, i) => {
      files[name] = `# Odd ${i}\n\noddtoken${i} 奇怪${i}\n`;
    });
    await writeFiles(ws, files);
    await symlink(join(outside, "secret.md"), join(ws, "memory/link.md"));
    await symlink(join(outside, "dir"), join(ws, "memory/linkdir"));
    await symlink("../../outside/secret.md", join(ws, "memory/relative-link.md"));
    await mkdir(join(ws, "memory/loop"), { recursive: true });
    await symlink("..", join(ws, "memory/loop/up"));
    const outsideBefore = await tree(outside);

    const runs: Array<[string, Run]> = [];
    const run = async (what: string, args: string[]) => {
      const r = await engram([...args, "-w", ws]);
      runs.push([what, r]);
      expectClean(r, what);
      return r;
    };

    const sync = await run("sync", ["sync", "--json"]);
    expect(sync.code, sync.stderr).toBe(0);
    const report = JSON.parse(sync.stdout) as SyncReport;
    const skipped = new Map(report.skipped.map((s) => [s.path, s.code]));
    expect(skipped.get("memory/latin1.md")).toBe("INVALID_ENCODING");
    expect(skipped.get("memory/binary.md")).toBe("INVALID_ENCODING");
    expect(skipped.get("memory/huge.md")).toBe("FILE_TOO_LARGE");
    // The same, said as warnings in text mode.
    const text = await run("sync (text)", ["sync", "--force"]);
    expect(text.stderr).toMatch(/skipped memory\/huge\.md/);

    // Indexed where they are good: the long line, the BOM, CRLF, every odd name.
    expect(await paths(ws, "needleoneline")).toEqual(["memory/one-line.md"]);
    expect(await paths(ws, "bomtoken")).toEqual(["memory/bom.md"]);
    expect(await paths(ws, "crlftoken")).toEqual(["memory/crlf.md"]);
    const oddFound: string[] = [];
    for (const [i, name] of oddNames.entries()) {
      const found = await paths(ws, `oddtoken${i}`);
      if (found.includes(name)) {
        oddFound.push(name);
        const got = await run(`get ${JSON.stringify(name)}`, ["get", name]);
        expect(got.code).toBe(0);
        expect(got.stdout).toContain(`oddtoken${i}`);
      } else {
        // Not indexed: then it was skipped with a reason.
        expect(skipped.has(name), `${JSON.stringify(name)} neither indexed nor skipped`).toBe(true);
      }
    }
    // Nothing from outside, through any link.
    for (const token of ["outsidesecret", "outsideinner"])
      expect(await paths(ws, token)).toEqual([]);
    for (const path of [
      "memory/link.md",
      "memory/relative-link.md",
      "memory/linkdir/inner.md",
      "../outside/secret.md",
      join(outside, "secret.md"),
    ]) {
      const got = await run(`get ${path}`, ["get", path]);
      expect(got.code, `get ${path}`).toBe(2);
      expect(got.stdout).not.toContain("outside");
    }
    // Writes that try to leave are refused.
    const escapes: Array<[string, string[]]> = [
      ["add --date ../x", ["add", "x", "--date", "../../outside/x"]],
      ["promote --to ../outside", ["promote", "escaping fact", "--to", "../outside/promoted.md"]],
      ["promote --to absolute", ["promote", "escaping fact", "--to", join(outside, "abs.md")]],
      ["promote --to a link", ["promote", "escaping fact", "--to", "memory/link.md"]],
    ];
    for (const [what, args] of escapes) {
      const r = await run(what, args);
      expect(r.code, `${what}\n${r.stdout}${r.stderr}`).not.toBe(0);
    }
    for (const command of [["status"], ["lifecycle", "plan"], ["context"], ["watch", "--help"]]) {
      const r = await run(command.join(" "), command);
      expect(r.code, r.stderr).toBe(0);
    }
    expect(await tree(outside)).toEqual(outsideBefore);
    expect(
      Object.keys(await tree(root)).filter(
        (p) => !p.startsWith("ws/") && !p.startsWith("outside/") && p !== "ws/" && p !== "outside/",
      ),
    ).toEqual([]);

    record("bad input: files", {
      "corpus files": Object.keys(files).length + 4,
      "skipped with a warning": report.skipped.length,
      "odd names indexed": oddFound.length,
      "CLI runs": runs.length,
      "writes outside": 0,
    });
  });

  it("configs: a clear error naming the file and the fix (exit 2), or accepted", async () => {
    const configs: Array<[string, string | Buffer, "refused" | "accepted"]> = [
      ["truncated JSON", '{ "search": ', "refused"],
      ["a string where a number goes", '{ "search": { "maxResults": "six" } }', "refused"],
      ["an unknown key", '{ "bogus": 1 }', "refused"],
      ["an array", "[]", "refused"],
      ["null", "null", "refused"],
      ["binary", Buffer.from([0xff, 0xfe, 0x00, 0x7b, 0x9c]), "refused"],
      ["a negative chunk size", '{ "chunking": { "tokens": -5 } }', "refused"],
      ["a huge number", '{ "chunking": { "tokens": 1e308 } }', "refused"],
      [
        "a rule escaping the workspace",
        JSON.stringify({
          lifecycle: {
            rules: [
              { name: "out", from: "memory/*.md", action: "archive", to: "../../escape/{name}" },
            ],
          },
        }),
        "refused",
      ],
      ["a UTF-8 byte-order mark", '\uFEFF{ "search": { "maxResults": 2 } }', "accepted"],
      ["an empty object", "{}", "accepted"],
    ];
    let refused = 0;
    for (const [what, content, expected] of configs) {
      const root = await tempDir();
      const ws = join(root, "ws");
      await writeFiles(ws, {
        "MEMORY.md": "# Memory\n\n部署窗口是周二\n",
        "memory/2025-01-01.md": "# 2025-01-01\n\nold log\n",
        "engram.config.json": content,
      });
      for (const command of [
        ["search", "部署"],
        ["lifecycle", "apply"],
      ]) {
        const r = await engram([...command, "-w", ws]);
        expectClean(r, `${what}: ${command.join(" ")}`);
        if (expected === "accepted") {
          expect(r.code, `${what}: ${command.join(" ")}\n${r.stderr}`).toBe(0);
        } else if (!(what.includes("escaping") && command[0] !== "lifecycle")) {
          expect(r.code, `${what}: ${command.join(" ")}\n${r.stderr}`).toBe(2);
          expect(r.stderr).toMatch(/engram\.config\.json|lifecycle|outside the workspace/);
          refused++;
        }
      }
      expect(Object.keys(await tree(root)).filter((p) => !p.startsWith("ws"))).toEqual([]);
    }
    record("bad input: configs", { configs: configs.length, "commands refused cleanly": refused });
  });
});
