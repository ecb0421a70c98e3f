import {
  isEngramError,
  listMemoryFiles,
  type MemoryFilesHost,
  type MemoryScope,
  readMemoryFileText,
  toolErrorText,
} from "@engram/core";
import { isPersonalPath } from "@engram/core/internal";
import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import {
  ErrorCode,
  McpError,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";

/** The URI scheme of memory files: `memory://MEMORY.md`, `memory://memory/2026-11-25.md`. */
export const MEMORY_URI_PREFIX = "memory://";

/** JSON-RPC error code MCP suggests for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;

/** The resource URI of a memory file's index path (each segment percent-encoded). */
export function memoryUri(path: string): string {
  return MEMORY_URI_PREFIX + path.split("/").map(encodeURIComponent).join("/");
}

/** What the resources need: the memory's files, in one scope. */
export interface MemoryResourceOptions {
  files: MemoryFilesHost;
  scope: MemoryScope;
}

/** Tells one session's client that memory files changed. */
export interface ResourceNotifier {
  /**
   * `paths` (index paths) changed: `notifications/resources/updated` for those the client
   * subscribed to; `listChanged` (a file appeared or went away) also sends
   * `notifications/resources/list_changed`.
   */
  changed(paths: readonly string[], listChanged: boolean): void;
}

/**
 * Serves the memory files as resources: `resources/list` (every file, with its tier, size and
 * modification time), `resources/templates/list` (`memory://{+path}`), `resources/read` (the
 * file's text, through core's `memory_get` sandbox) and `resources/subscribe`. In the group scope,
 * core's rules hold: personal and sensitive files are neither listed nor readable, private blocks
 * are cut. Call before `connect`.
 */
export function registerMemoryResources(
  server: McpServer,
  { files, scope }: MemoryResourceOptions,
): ResourceNotifier {
  server.registerResource(
    "memory-file",
    new ResourceTemplate(`${MEMORY_URI_PREFIX}{+path}`, {
      list: async () => ({
        resources: (await listMemoryFiles(files, { scope })).map((file) => ({
          uri: memoryUri(file.path),
          name: file.path,
          title: file.path,
          description: `${file.tier}-term memory`,
          mimeType: "text/markdown",
          size: file.bytes,
          annotations: {
            lastModified: file.modified,
            audience: ["user", "assistant"],
            priority: file.tier === "long" ? 0.8 : file.tier === "archive" ? 0.2 : 0.5,
          },
        })),
      }),
      complete: {
        path: async (value) =>
          (await listMemoryFiles(files, { scope }))
            .map((f) => f.path)
            .filter((p) => p.startsWith(value))
            .slice(0, 100),
      },
    }),
    {
      title: "Memory file",
      description:
        "A Markdown memory file of the workspace (MEMORY.md, daily logs memory/YYYY-MM-DD.md, " +
        "memory/**), read from disk.",
      mimeType: "text/markdown",
    },
    async (uri, variables) => {
      const path = decodeURIComponent(String(variables.path));
      try {
        const { text } = await readMemoryFileText(files, path, { scope });
        return { contents: [{ uri: uri.href, mimeType: "text/markdown", text }] };
      } catch (error) {
        throw asMcpError(error);
      }
    },
  );

  const subscribed = new Set<string>();
  server.server.registerCapabilities({ resources: { subscribe: true, listChanged: true } });
  server.server.setRequestHandler(SubscribeRequestSchema, (request) => {
    subscribed.add(new URL(request.params.uri).href);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, (request) => {
    subscribed.delete(new URL(request.params.uri).href);
    return {};
  });

  return {
    changed(paths, listChanged) {
      if (!server.isConnected()) return;
      for (const path of new Set(paths)) {
        // A group-scope client is not told when a personal file changes.
        if (scope === "group" && isPersonalPath(path, files.layout.personalFiles)) continue;
        const uri = new URL(memoryUri(path)).href;
        if (subscribed.has(uri)) void server.server.sendResourceUpdated({ uri }).catch(() => {});
      }
      if (listChanged) server.sendResourceListChanged();
    },
  };
}

/** An engram error as the JSON-RPC error of a resource read (`CODE: message (hint)`). */
function asMcpError(error: unknown): McpError {
  if (!isEngramError(error)) return new McpError(ErrorCode.InternalError, String(error));
  const code = error.code === "FILE_NOT_FOUND" ? RESOURCE_NOT_FOUND : ErrorCode.InvalidParams;
  return new McpError(code, toolErrorText(error), { code: error.code });
}
