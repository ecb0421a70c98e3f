// The client snippets of the README, run as each client would: the command and arguments a
// client launches (stdio), or the URL it connects to (HTTP), driven by the MCP SDK's client.
import { readFile } from "node:fs/promises";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { parse as parseToml } from "smol-toml";
import { afterEach, describe, expect, it } from "vitest";
import { BIN } from "./helpers.js";
import {
  childEnv,
  cleanups,
  connectHttp,
  runCleanups,
  startHttp,
  workspace,
} from "./mcp-client.js";

afterEach(runCleanups);

const README = new URL("../README.md", import.meta.url);
const PLACEHOLDER = "/home/me/my-agent";
const DEFAULT_URL = "http://127.0.0.1:7345/mcp";
/** VS Code's variable for the open folder. */
const VSCODE_FOLDER = ["$", "{workspaceFolder}"].join("");

/** The fenced block after each `<!-- client: name -->` marker of the README. */
async function snippets(): Promise<Map<string, { lang: string; text: string }>> {
  const text = await readFile(README, "utf8");
  const found = new Map<string, { lang: string; text: string }>();
  for (const m of text.matchAll(/<!-- client: ([\w-]+) -->\n```(\w+)\n([\s\S]*?)\n```/g)) {
    found.set(m[1] as string, { lang: m[2] as string, text: m[3] as string });
  }
  return found;
}

/** What a client does with a snippet: launch a command, or connect to a URL. */
type Launch = { command: string; args: string[] } | { url: string; tokenEnv?: string };

function launchOf(name: string, { lang, text }: { lang: string; text: string }): Launch {
  if (lang === "sh") {
    const words = text.trim().split(/\s+/);
    if (words.includes("--transport")) return { url: words.at(-1) as string };
    const rest = words.slice(words.indexOf("--") + 1);
    return { command: rest[0] as string, args: rest.slice(1) };
  }
  const config = (lang === "toml" ? parseToml(text) : JSON.parse(text)) as Record<string, unknown>;
  const servers = (config.mcpServers ?? config.servers ?? config.mcp_servers) as Record<
    string,
    { command?: string; args?: string[]; url?: string; bearer_token_env_var?: string }
  >;
  const server = servers.engram;
  if (!server) throw new Error(`${name}: no "engram" server`);
  if (server.url) {
    return {
      url: server.url,
      ...(server.bearer_token_env_var ? { tokenEnv: server.bearer_token_env_var } : {}),
    };
  }
  return { command: server.command as string, args: server.args ?? [] };
}

/** The client's command run against the built CLI: `engram …` and `npx -y @engram/cli …`. */
function asBuilt(command: string, args: string[], ws: string): { command: string; args: string[] } {
  const real = args.map((a) => a.replace(PLACEHOLDER, ws).replace(VSCODE_FOLDER, ws));
  if (command === "engram") return { command: process.execPath, args: [BIN, ...real] };
  if (command === "npx" && real[0] === "-y" && real[1] === "@engram/cli") {
    return { command: process.execPath, args: [BIN, ...real.slice(2)] };
  }
  throw new Error(`unexpected command ${command}`);
}

const CLIENTS = ["claude-desktop", "claude-code", "cursor", "vscode", "codex", "npx"];
const HTTP_CLIENTS = ["claude-code-http", "vscode-http", "codex-http"];

describe("README client snippets", () => {
  it("names every client the README promises", async () => {
    expect([...(await snippets()).keys()].sort()).toEqual([...CLIENTS, ...HTTP_CLIENTS].sort());
  });

  it("stdio snippets launch a server whose tools and files an MCP client sees (all at once)", async () => {
    const all = await snippets();
    await Promise.all(
      CLIENTS.map(async (name) => {
        const launch = launchOf(name, all.get(name) ?? { lang: "", text: "" });
        if (!("command" in launch)) throw new Error(`${name} is not a stdio snippet`);
        const ws = await workspace({ "MEMORY.md": `# Long-term Memory\n\n偏好：简洁 (${name})\n` });
        const transport = new StdioClientTransport({
          ...asBuilt(launch.command, launch.args, ws),
          env: childEnv(),
          stderr: "pipe",
        });
        const client = new Client({ name: `engram-${name}`, version: "1.0.0" });
        await client.connect(transport);
        cleanups.push(() => client.close());
        expect(
          (await client.listTools()).tools.map((t) => t.name),
          name,
        ).toContain("memory_search");
        const read = await client.readResource({ uri: "memory://MEMORY.md" });
        expect(read.contents[0], name).toMatchObject({
          text: expect.stringContaining(`(${name})`),
        });
      }),
    );
  });

  it("HTTP snippets point at the default endpoint, with the token variable where the client has one", async () => {
    const all = await snippets();
    const ws = await workspace({ "MEMORY.md": "# Long-term Memory\n" });
    const token = "readme-token-0123456789";
    const server = await startHttp(ws, [], { ENGRAM_MCP_TOKEN: token });
    for (const name of HTTP_CLIENTS) {
      const launch = launchOf(name, all.get(name) ?? { lang: "", text: "" });
      if (!("url" in launch)) throw new Error(`${name} is not an HTTP snippet`);
      expect(launch.url).toBe(DEFAULT_URL);
      if (launch.tokenEnv) expect(launch.tokenEnv).toBe("ENGRAM_MCP_TOKEN");
      // The same path on the port this test's server got.
      const url = launch.url.replace(new URL(DEFAULT_URL).origin, new URL(server.url).origin);
      const client = await connectHttp(url, { Authorization: `Bearer ${token}` });
      expect((await client.client.listTools()).tools.length).toBeGreaterThan(0);
    }
  });
});
