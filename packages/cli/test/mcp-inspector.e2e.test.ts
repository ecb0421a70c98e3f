// The MCP Inspector's CLI mode (a devDependency from npm) against the built `engram mcp`, over
// stdio and Streamable HTTP: what a person checking the server by hand would run.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { BIN } from "./helpers.js";
import { childEnv, runCleanups, startHttp, workspace } from "./mcp-client.js";

afterEach(runCleanups);

const INSPECTOR = join(
  dirname(createRequire(import.meta.url).resolve("@modelcontextprotocol/inspector/package.json")),
  "clients/launcher/build/index.js",
);

/** `inspector --cli …args`; resolves with its exit code and output. */
function inspector(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [INSPECTOR, "--cli", ...args], {
      env: childEnv({
        MCP_CATALOG_PATH: join(process.env.TMPDIR ?? "/tmp", "engram-no-catalog.json"),
      }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

const FILES = { "MEMORY.md": "# Long-term Memory\n\n用户偏好：先给结论。\n" };

describe("MCP Inspector CLI", () => {
  it("lists the tools over stdio with no schema portability problem (--strict)", async () => {
    const ws = await workspace(FILES);
    const run = await inspector([
      process.execPath,
      BIN,
      "-w",
      ws,
      "mcp",
      "--method",
      "tools/list",
      "--strict",
    ]);
    expect(run.code, run.stderr).toBe(0);
    const { tools } = JSON.parse(run.stdout);
    expect(tools.map((t: { name: string }) => t.name)).toEqual([
      "memory_search",
      "memory_get",
      "memory_write",
      "memory_forget",
      "memory_update",
      "memory_consolidate",
    ]);
    expect(run.stderr).not.toMatch(/Warning|Error: tool/);
  });

  it("calls a tool, reads a resource and gets a prompt over Streamable HTTP", async () => {
    const ws = await workspace(FILES);
    const { url } = await startHttp(ws);
    const call = await inspector([
      url,
      "--method",
      "tools/call",
      "--tool-name",
      "memory_search",
      "--tool-arg",
      "query=结论",
    ]);
    expect(call.code, call.stderr).toBe(0);
    expect(JSON.parse(call.stdout).structuredContent.results[0]).toMatchObject({
      path: "MEMORY.md",
    });
    const read = await inspector([
      url,
      "--method",
      "resources/read",
      "--uri",
      "memory://MEMORY.md",
    ]);
    expect(JSON.parse(read.stdout).contents[0].text).toContain("先给结论");
    const prompt = await inspector([
      url,
      "--method",
      "prompts/get",
      "--prompt-name",
      "recall",
      "--prompt-args",
      "topic=发布",
    ]);
    expect(JSON.parse(prompt.stdout).messages[0].content.text).toMatch(/about: 发布/);
  });
});
