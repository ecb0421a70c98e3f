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
  ListResourcesRequestSchema,
  McpError,
  type Resource,
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

/**
 * Resources per `resources/list` page. A workspace of 26,922 files listed whole was one 9.8 MB
 * message: the SDK's own stdio client took seconds to take it in, and refuses messages past
 * 10 MiB (~29,000 files). A page of 1,000 is ~0.28 MB.
 */
export const RESOURCES_PER_PAGE = 1000;

/** What the resources need: the memory's files, in one scope. */
export interface MemoryResourceOptions {
  files: MemoryFilesHost;
  scope: MemoryScope;
  /** Resources per `resources/list` page (default {@link RESOURCES_PER_PAGE}). */
  pageSize?: number;
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
 * modification time, {@link RESOURCES_PER_PAGE} a page), `resources/templates/list`
 * (`memory://{+path}`), `resources/read` (the file's text, through core's `memory_get` sandbox)
 * and `resources/subscribe`. In the group scope, core's rules hold: personal and sensitive files
 * are neither listed nor readable, private blocks are cut. Call before `connect`.
 */
export function registerMemoryResources(
  server: McpServer,
  { files, scope, pageSize = RESOURCES_PER_PAGE }: MemoryResourceOptions,
): ResourceNotifier {
  server.registerResource(
    "memory-file",
    // Listed by the paginated handler below, not by the template (the SDK lists it whole).
    new ResourceTemplate(`${MEMORY_URI_PREFIX}{+path}`, {
      list: undefined,
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

  // `resources/list` a page at a time (MCP's cursor pagination). The cursor is the offset into
  // the listing (in path order). A first page lists the files; the pages after it read that
  // listing again (26,922 files: ~0.5 s a scan) until a file changes.
  let listing: Awaited<ReturnType<typeof listMemoryFiles>> | undefined;
  server.server.removeRequestHandler("resources/list");
  server.server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const offset = pageOffset(request.params?.cursor);
    if (offset === 0 || !listing) listing = await listMemoryFiles(files, { scope });
    const listed = listing;
    const end = offset + pageSize;
    return {
      resources: listed.slice(offset, end).map(
        (file): Resource => ({
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
        }),
      ),
      ...(end < listed.length ? { nextCursor: pageCursor(end) } : {}),
    };
  });

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
      listing = undefined; // sizes and times changed, or files came and went
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

/** The opaque cursor of the page starting at `offset`. */
function pageCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ offset })).toString("base64url");
}

/** The offset a cursor names (0 without one). @throws McpError `InvalidParams` for a bad cursor. */
function pageOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  let offset: unknown;
  try {
    offset = (JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as { offset?: unknown })
      .offset;
  } catch {
    offset = undefined;
  }
  if (typeof offset !== "number" || !Number.isSafeInteger(offset) || offset < 0) {
    throw new McpError(
      ErrorCode.InvalidParams,
      "invalid cursor: pass back the nextCursor of the previous resources/list page unchanged",
    );
  }
  return offset;
}
