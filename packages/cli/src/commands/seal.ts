import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  EngramError,
  generateSealKey,
  rotateMemoryKey,
  type SealOutcome,
  type SpanSealOutcome,
  sealMemoryFiles,
  sealMemorySpans,
  unsealMemoryFiles,
  unsealMemorySpans,
} from "@engram/core";
import type { Command } from "commander";
import { globals, withMemory } from "../context.js";
import { type Io, json, line, plural } from "../output.js";

/**
 * `engram seal` / `unseal` / `rekey` / `keygen`: encryption at rest of sensitive memory files
 * (age), with the key from ENGRAM_KEY or ENGRAM_KEY_FILE.
 */
export function registerSeal(program: Command, io: Io): void {
  program
    .command("seal")
    .description("encrypt memory files at rest (age); each becomes a readable sealed placeholder")
    .argument("<paths...>", "workspace-relative memory files, as engram get takes them")
    .option(
      "--spans",
      "seal only the private spans (<!-- engram:private --> … <!-- /engram:private -->) in place; the rest stays plain",
    )
    .action(async (paths: string[], flags: { spans?: boolean }, cmd: Command) => {
      await withMemory(cmd, async (memory, g) => {
        const outcomes = flags.spans
          ? await sealMemorySpans(memory, paths)
          : await sealMemoryFiles(memory, paths);
        report(io, g.json, outcomes, "sealed", "already sealed");
        if (!g.json && outcomes.some((o) => o.wasIndexed)) {
          line(
            io,
            "Note: the index held these files in plain before; their chunks are gone, but words may stay in its vocabulary. To leave no trace, delete .engram/ (a cache) and run engram sync.",
          );
        }
      });
    });
  program
    .command("unseal")
    .description("restore sealed memory files to their exact original bytes (needs the key)")
    .argument("<paths...>", "workspace-relative memory files, as engram get takes them")
    .option("--spans", "open the private spans sealed in place (engram seal --spans)")
    .action(async (paths: string[], flags: { spans?: boolean }, cmd: Command) => {
      await withMemory(cmd, async (memory, g) => {
        const outcomes = flags.spans
          ? await unsealMemorySpans(memory, paths)
          : await unsealMemoryFiles(memory, paths);
        report(io, g.json, outcomes, "unsealed", "not sealed");
      });
    });
  program
    .command("rekey")
    .description(
      "re-seal every sealed file and sealed span to a new key (ENGRAM_NEW_KEY or ENGRAM_NEW_KEY_FILE); journaled, resumable",
    )
    .action(async (_flags: unknown, cmd: Command) => {
      await withMemory(cmd, async (memory, g) => {
        const outcome = await rotateMemoryKey(memory, io.env);
        if (g.json) return json(io, outcome);
        line(
          io,
          `${plural(outcome.rotated.length, "file")} re-sealed to the new key${
            outcome.already.length ? `, ${outcome.already.length} already were` : ""
          }${outcome.resumed ? " (finished an interrupted rotation)" : ""}. Use the new key from now on.`,
        );
      });
    });
  program
    .command("keygen")
    .description("create a sealing key (an age identity) in a file outside the workspace")
    .requiredOption(
      "--out <file>",
      "where to write the key (created with mode 0600; never overwritten)",
    )
    .option("--passphrase-env <var>", "protect the key file with the passphrase in this variable")
    .action(async (flags: { out: string; passphraseEnv?: string }, cmd: Command) => {
      const passphrase = flags.passphraseEnv ? io.env[flags.passphraseEnv] : undefined;
      if (flags.passphraseEnv && !passphrase) {
        throw new EngramError("INVALID_ARGUMENT", `${flags.passphraseEnv} is not set`, {
          hint: "set it to the passphrase, or leave --passphrase-env out",
        });
      }
      const key = await generateSealKey(passphrase ? { passphrase } : {});
      const out = resolve(flags.out);
      try {
        await writeFile(out, key.fileText, { flag: "wx", mode: 0o600 });
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "EEXIST") {
          throw new EngramError("INVALID_ARGUMENT", `${out} already exists`, {
            hint: "choose another --out file; a key file is never overwritten",
          });
        }
        throw error;
      }
      if (globals(cmd).json) return json(io, { file: out, recipient: key.recipient });
      line(io, `Key written to ${out} (public key ${key.recipient}).`);
      line(
        io,
        `Use it with ENGRAM_KEY_FILE=${out}${passphrase ? " and ENGRAM_PASSPHRASE" : ""}; keep a copy: sealed files cannot be opened without it.`,
      );
    });
}

function report(
  io: Io,
  asJson: boolean | undefined,
  outcomes: Array<SealOutcome | SpanSealOutcome>,
  done: string,
  unchanged: string,
): void {
  if (asJson) {
    json(io, { files: outcomes });
    return;
  }
  for (const o of outcomes) {
    if (!("spans" in o)) {
      line(io, `${o.path}: ${o.changed ? done : unchanged}`);
      continue;
    }
    const spans = o as SpanSealOutcome;
    if (spans.wholeFileSealed) line(io, `${o.path}: sealed whole; its spans are inside that seal`);
    else if (o.changed) line(io, `${o.path}: ${plural(spans.spans, "private span")} ${done}`);
    else line(io, `${o.path}: no private span to change (${unchanged})`);
  }
}
