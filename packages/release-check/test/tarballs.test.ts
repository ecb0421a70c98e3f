import { readdirSync, readFileSync } from "node:fs";
import { join, posix } from "node:path";
import { checkPackage, createPackageFromTarballData, type Package } from "@arethetypeswrong/core";
import { publint } from "publint";
import { formatMessage } from "publint/utils";
import { describe, expect, inject, it } from "vitest";
import { publicPackages, ROOT } from "./packages.js";

/** Resolution modes an ESM-only package does not serve (attw's `esm-only` profile). */
const IGNORED_RESOLUTIONS = new Set(["node10", "node16-cjs"]);

const tarballs = inject("tarballs");

/** Packages that pending changesets (`.changeset/*.md`) will release. */
function pendingReleases(): string[] {
  const dir = join(ROOT, ".changeset");
  return readdirSync(dir)
    .filter((file) => file.endsWith(".md"))
    .flatMap((file) => {
      const front = /^---\n([\s\S]*?)\n---/.exec(readFileSync(join(dir, file), "utf8"))?.[1] ?? "";
      return [...front.matchAll(/^["']?([^"':]+)["']?\s*:/gm)].map((m) => (m[1] as string).trim());
    });
}

describe.each(publicPackages())("$name tarball", ({ name, version }) => {
  const data = () => new Uint8Array(readFileSync(tarballs[name] as string));
  let unpacked: Package | undefined;
  const pkg = () => {
    unpacked ??= createPackageFromTarballData(data());
    return unpacked;
  };
  const root = `/node_modules/${name}`;
  const files = () => pkg().listFiles();
  const manifest = () =>
    JSON.parse(pkg().readFile(`${root}/package.json`)) as Record<string, unknown> & {
      version: string;
      license?: string;
      engines?: { node?: string };
    };

  it("ships LICENSE and README.md, and a real version with no workspace: ranges", () => {
    expect(files()).toContain(`${root}/LICENSE`);
    expect(pkg().readFile(`${root}/LICENSE`)).toMatch(/^MIT License/);
    expect(files()).toContain(`${root}/README.md`);
    const json = manifest();
    expect(json.version).toBe(version);
    // A new package may wait at 0.0.0 for the release that versions it, if a changeset names it.
    if (json.version === "0.0.0")
      expect(pendingReleases(), `a changeset for ${name}`).toContain(name);
    expect(json.license).toBe("MIT");
    expect(json.engines?.node).toBe(">=20.19");
    expect(JSON.stringify(json)).not.toContain("workspace:");
  });

  it("ships a source map only with its sources (inline, or as files in the tarball)", () => {
    const maps = files().filter((file) => file.endsWith(".map"));
    const broken: string[] = [];
    for (const file of maps) {
      const map = JSON.parse(pkg().readFile(file)) as {
        sources: string[];
        sourcesContent?: (string | null)[];
      };
      map.sources.forEach((source, i) => {
        const shipped = files().includes(posix.join(posix.dirname(file), source));
        if (typeof map.sourcesContent?.[i] !== "string" && !shipped)
          broken.push(`${file} → ${source}`);
      });
    }
    expect(broken).toEqual([]);
  });

  it("passes publint (no errors, no warnings)", async () => {
    const { messages, pkg: json } = await publint({
      pack: { tarball: data().buffer as ArrayBuffer },
      level: "warning",
    });
    expect(messages.map((m) => `${m.type}: ${formatMessage(m, json) ?? m.code}`)).toEqual([]);
  });

  it("has types that resolve for ESM consumers (Are the Types Wrong)", async () => {
    const result = await checkPackage(pkg());
    expect(result.types).not.toBe(false);
    const problems = "problems" in result ? result.problems : [];
    const relevant = problems.filter(
      (p) => !("resolutionKind" in p) || !IGNORED_RESOLUTIONS.has(p.resolutionKind),
    );
    expect(relevant).toEqual([]);
  });
});
