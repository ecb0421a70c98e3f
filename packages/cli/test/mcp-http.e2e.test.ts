// `engram mcp --http`: the SDK's Streamable HTTP client against a real child process; several
// clients sharing one index; Host/Origin checks and the bearer token.
import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { engram, eventually } from "./helpers.js";
import { connectHttp, json, runCleanups, startHttp, workspace } from "./mcp-client.js";

afterEach(runCleanups);

const FILES = { "MEMORY.md": "# Long-term Memory\n\n用户偏好：先给结论。\n" };

/** A raw POST with chosen headers (node:http lets a test set Host), resolving to status + body. */
function post(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          ...headers,
        },
      },
      (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

describe("engram mcp --http", () => {
  it("serves several clients at once over one index: each sees what the others write", async () => {
    const ws = await workspace(FILES);
    const server = await startHttp(ws);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => connectHttp(server.url)));
    if (!a || !b || !c) throw new Error("three clients expected");
    const clients = [a, b, c];
    expect((await a.client.listTools())?.tools.map((t) => t.name)).toContain("memory_write");

    // Writes from every client at once, then searches: no lock errors, nothing lost.
    const writes = await Promise.all(
      clients.flatMap((c, i) =>
        [0, 1, 2].map((j) =>
          c.call("memory_write", { text: `客户端${i} 笔记${j} marker${i}x${j}` }),
        ),
      ),
    );
    expect(writes.filter((w) => w.isError)).toEqual([]);
    for (const [i, client] of clients.entries()) {
      const other = (i + 1) % clients.length;
      const found = json(
        await client.call("memory_search", { query: `marker${other}x2`, minScore: 0 }),
      );
      expect(found.results[0]?.snippet).toContain(`marker${other}x2`);
    }
    const log = json(await a.call("memory_get", { path: json(writes[0] ?? { content: [] }).path }));
    for (const i of [0, 1, 2])
      for (const j of [0, 1, 2]) expect(log.text).toContain(`marker${i}x${j}`);
    const read = await c.client.readResource({ uri: "memory://MEMORY.md" });
    expect(read.contents[0]).toMatchObject({ text: expect.stringContaining("先给结论") });
    expect(server.stderr().match(/session \S+ opened/g)).toHaveLength(3);
  });

  it("refuses foreign Host and Origin headers (DNS rebinding) before MCP sees them", async () => {
    const server = await startHttp(await workspace(FILES));
    const { port } = new URL(server.url);
    const evilHost = await post(server.url, { host: `evil.example:${port}` });
    expect(evilHost.status).toBe(403);
    expect(evilHost.body).toMatch(/Host header .*evil\.example.* is not allowed/);
    const evilOrigin = await post(server.url, { origin: "http://evil.example" });
    expect(evilOrigin.status).toBe(403);
    expect((await post(server.url, { origin: "null" })).status).toBe(403);
    // The same request from a page on this machine, or with no Origin (a CLI or IDE), is served.
    expect((await post(server.url, { origin: `http://localhost:${port}` })).status).toBe(200);
    expect((await post(server.url, { host: `localhost:${port}` })).status).toBe(200);
    expect((await post(server.url.replace("/mcp", "/other"), {})).status).toBe(404);
  });

  it("requires the bearer token from ENGRAM_MCP_TOKEN, and makes one up off loopback", async () => {
    const ws = await workspace(FILES);
    const stdioPort = await engram(["-w", ws, "mcp", "--port", "7345"]);
    expect(stdioPort.code).toBe(2);
    expect(stdioPort.stderr).toMatch(/--port only apply to --http/);
    const weak = await engram(["-w", ws, "mcp", "--http", "--port", "0"], {
      env: { ENGRAM_MCP_TOKEN: "令牌" },
    });
    expect(weak.code).toBe(2);
    expect(weak.stderr).toMatch(/ENGRAM_MCP_TOKEN is not a usable bearer token/);
    const withToken = await startHttp(ws, [], { ENGRAM_MCP_TOKEN: "s3cret-token-0123456789" });
    expect((await post(withToken.url, {})).status).toBe(401);
    // A port in use is named, with the fix.
    const busy = await engram(["-w", ws, "mcp", "--http", "--port", new URL(withToken.url).port]);
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(/cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\).*--port 0/);
    expect((await post(withToken.url, { authorization: "Bearer wrong" })).status).toBe(401);
    await expect(connectHttp(withToken.url)).rejects.toThrow();
    const ok = await connectHttp(withToken.url, {
      Authorization: "Bearer s3cret-token-0123456789",
    });
    expect((await ok.client.listTools()).tools.length).toBeGreaterThan(0);

    // Listening on every interface: a token is made up and printed; without it, 401.
    const open = await startHttp(ws, ["--host", "0.0.0.0", "--read-only"]);
    // The token is logged after the URL, possibly in a later chunk of stderr.
    const token = await eventually(
      async () =>
        /bearer token \(set ENGRAM_MCP_TOKEN to choose it\): (\S+)/.exec(open.stderr())?.[1],
      10_000,
    );
    expect(token).toMatch(/^[\w-]{32}$/);
    const url = open.url.replace("0.0.0.0", "127.0.0.1");
    expect((await post(url, {})).status).toBe(401);
    const client = await connectHttp(url, { Authorization: `Bearer ${token}` });
    expect((await client.client.listTools()).tools.map((t) => t.name)).not.toContain(
      "memory_write",
    );
  });
});
