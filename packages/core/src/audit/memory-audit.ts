import type { Memory } from "../memory.js";
import { createTierResolver } from "../workspace/tiers.js";
import { type AuditOptions, type AuditReport, auditWorkspace } from "./audit.js";

/**
 * {@link auditWorkspace} for a memory: its config, analyzer, tiers and sealing key (a key that
 * cannot be read counts as none: sealed files are then reported).
 */
export async function auditMemory(
  memory: Pick<Memory, "workspace" | "config" | "analyzer" | "layout" | "sealing" | "recall">,
  options: AuditOptions = {},
): Promise<AuditReport> {
  await memory.recall.flush();
  const key = await memory.sealing.key().catch(() => null);
  return auditWorkspace(
    {
      workspace: memory.workspace,
      config: memory.config,
      analyzer: memory.analyzer,
      tierOf: createTierResolver(memory.layout.tiers, memory.config.defaultTier),
      key,
    },
    options,
  );
}
