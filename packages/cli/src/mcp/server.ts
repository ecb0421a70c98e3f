import type { Clock, Memory, MemoryFilesHost, MemoryScope, MemoryTools } from "@engram/core";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { registerMemoryPrompts } from "./prompts.js";
import { type ResourceNotifier, registerMemoryResources } from "./resources.js";
import { registerMemoryTools } from "./tools.js";

/** What the MCP server tells clients about itself and how to use its tools. */
const INSTRUCTIONS =
  "engram is this agent's memory: Markdown files (MEMORY.md, memory/YYYY-MM-DD.md, memory/**). " +
  "Call memory_search before answering questions about prior work, decisions, people or " +
  "preferences; read more with memory_get (path and lines from a result). Store lasting notes " +
  "with memory_write: it only appends. The files are also resources (memory://<path>).";

/** Everything one MCP session serves; one set of parts is shared by every session of a process. */
export interface EngramMcpParts {
  /** The tools offered (`createMemoryTools`; read-only leaves the writing ones out). */
  tools: MemoryTools;
  /** The memory whose files are resources and whose config words the flush prompt. */
  memory: MemoryFilesHost & { clock: Clock; config: Pick<Memory["config"], "flush"> };
  /** `main` (the user's own client) or `group` (core's group-scope rules for resources). */
  scope: MemoryScope;
  readOnly: boolean;
  info: { name: string; version: string };
}

/** One MCP session: the server to connect to a transport, and how to tell its client of changes. */
export interface EngramMcpSession {
  server: McpServer;
  resources: ResourceNotifier;
}

/**
 * A high-level SDK `McpServer` serving engram's memory: every tool core defines (with title,
 * annotations, input and output schemas), the memory files as `memory://` resources with
 * subscriptions, and the `recall` and `flush` prompts. An `McpServer` talks to one transport, so
 * the HTTP transport makes one per session over the same parts (one index, no lock fights).
 */
export function createEngramMcpServer(parts: EngramMcpParts): EngramMcpSession {
  const server = new McpServer(parts.info, { instructions: INSTRUCTIONS });
  registerMemoryTools(server, parts.tools);
  const resources = registerMemoryResources(server, {
    files: parts.memory,
    scope: parts.scope,
  });
  registerMemoryPrompts(server, {
    flush: parts.memory.config.flush,
    clock: parts.memory.clock,
    readOnly: parts.readOnly,
  });
  return { server, resources };
}
