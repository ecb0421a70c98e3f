import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The repository's root folder. */
export const ROOT = join(import.meta.dirname, "..", "..", "..");

/** A package the repository publishes: every `packages/*` whose package.json is not private. */
export interface PublicPackage {
  name: string;
  version: string;
  dir: string;
}

/** Every public package, found from the folders, so a new package is checked without edits here. */
export function publicPackages(): PublicPackage[] {
  const packages: PublicPackage[] = [];
  for (const folder of readdirSync(join(ROOT, "packages"))) {
    const file = join(ROOT, "packages", folder, "package.json");
    if (!existsSync(file)) continue;
    const pkg = JSON.parse(readFileSync(file, "utf8")) as {
      name: string;
      version: string;
      private?: boolean;
    };
    if (!pkg.private)
      packages.push({ name: pkg.name, version: pkg.version, dir: join(ROOT, "packages", folder) });
  }
  return packages;
}

/**
 * How to run pnpm here: `pnpm` when it is on PATH (under `pnpm run` it is), else the version the
 * root package.json pins, through npx (a clean machine has only Node and npm).
 */
export function pnpmCommand(): [string, string[]] {
  if (spawnSync("pnpm", ["--version"], { stdio: "ignore" }).status === 0) return ["pnpm", []];
  const { packageManager } = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
    packageManager: string;
  };
  return ["npx", ["--yes", packageManager]];
}

/** Run pnpm with `args` in `cwd`; returns stdout, throws with pnpm's output when it fails. */
export function pnpm(args: string[], cwd: string, env: NodeJS.ProcessEnv = process.env): string {
  const [command, prefix] = pnpmCommand();
  try {
    return execFileSync(command, [...prefix, ...args], {
      cwd,
      env,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
      maxBuffer: 64 * 1024 * 1024,
    });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`pnpm ${args.join(" ")} failed in ${cwd}:\n${stdout ?? ""}\n${stderr ?? ""}`);
  }
}
