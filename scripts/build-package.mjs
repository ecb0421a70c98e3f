// Builds the package in the current folder: `node ../../scripts/build-package.mjs`.
//
// JavaScript: esbuild bundles each entry point (every `exports` target and `bin` in package.json,
// every `dist/*.js` its scripts run, and `src/**/*-worker.ts`, which code forks by path) into one
// ES module, with the code the entries
// share split into chunks beside them. A package is then a few files instead of a hundred: Node's
// ESM loader costs ~0.7 ms of CPU per module, and `@engram/core` alone was ~200 modules, so one
// `engram search` process spent more time finding and linking modules than searching.
// Dependencies stay external (`packages: "external"`): installed packages are shared, never copied,
// so there is exactly one `@engram/core` in a process however many drivers load.
//
// Types: tsc emits the declarations (one `.d.ts` per source file, as before).
// Source maps carry their sources (`sourcesContent`), so a published map never points at a `src/`
// the tarball does not ship; declaration maps, which could only point there, are not emitted.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { build } from "esbuild";

const root = process.cwd();
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

/** `./dist/testing/index.js` → `testing/index` (the entry's name under dist/). */
function entryName(target) {
  const match = /^\.\/dist\/(.+)\.js$/.exec(target);
  if (!match)
    throw new Error(`${pkg.name}: cannot map ${target} back to src/ (expected ./dist/*.js)`);
  return match[1];
}

/** Every file a consumer or a `fork()` reaches: export targets, bins and `*-worker.ts` files. */
function entryPoints() {
  const targets = new Set();
  const collect = (value) => {
    if (typeof value === "string") {
      if (value.endsWith(".js")) targets.add(value);
    } else if (value && typeof value === "object") {
      for (const [condition, nested] of Object.entries(value)) {
        if (condition !== "types") collect(nested);
      }
    }
  };
  collect(pkg.exports ?? {});
  collect(typeof pkg.bin === "string" ? { bin: pkg.bin } : (pkg.bin ?? {}));
  const entries = {};
  for (const target of targets) {
    const name = entryName(target);
    const source = join(root, "src", `${name}.ts`);
    if (!existsSync(source))
      throw new Error(`${pkg.name}: ${target} has no source ${relative(root, source)}`);
    entries[name] = source;
  }
  // Programs the package's own scripts run (`"example": "node dist/example.js"`).
  for (const script of Object.values(pkg.scripts ?? {})) {
    for (const [, name] of script.matchAll(/\bdist\/([\w./-]+)\.js\b/g)) {
      const source = join(root, "src", `${name}.ts`);
      if (existsSync(source)) entries[name] = source;
    }
  }
  // Forked by URL next to the code that forks it: bundled under its own name at the top of dist/,
  // where the chunks holding that code live too.
  for (const file of walk(join(root, "src"))) {
    if (file.endsWith("-worker.ts")) entries[file.split("/").pop().slice(0, -3)] = file;
  }
  return entries;
}

function* walk(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(path);
    else yield path;
  }
}

const dist = resolve(root, "dist");
rmSync(dist, { recursive: true, force: true });

execFileSync(
  process.execPath,
  [
    resolve(import.meta.dirname, "../node_modules/typescript/bin/tsc"),
    "-p",
    "tsconfig.build.json",
    "--emitDeclarationOnly",
    "--declarationMap",
    "false",
  ],
  { stdio: "inherit", cwd: root },
);

await build({
  absWorkingDir: root,
  entryPoints: entryPoints(),
  outdir: dist,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20.19",
  packages: "external",
  // Chunks sit at the top of dist/, so `new URL("../package.json", import.meta.url)` and forked
  // workers resolve from shared code as they did from src/.
  chunkNames: "[name]-[hash]",
  sourcemap: true,
  sourcesContent: true,
  keepNames: true,
  logLevel: "warning",
});
