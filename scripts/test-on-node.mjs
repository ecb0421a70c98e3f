// Runs the test suite again under another Node major (default 22), so CI covers the Node lines
// users run and not only the machine's own. That Node comes from the npm registry (the
// `node-<platform>-<arch>` package Node's `node` package installs from), cached under
// node_modules/.cache/engram-node/. better-sqlite3 is the one addon built against V8 itself rather
// than Node-API: it is compiled against that Node's headers for the run, and the build for the
// machine's Node is put back afterwards.
//
//   node scripts/test-on-node.mjs [major]     after `npm test` has installed and built
//
// Each major's results are reported apart (test-results/vitest-node-<major>.json), and the Node
// that runs them is part of turbo's hash of each test task (scripts/run-tests.mjs), so a run never
// replays another Node's results.
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { delimiter, dirname, join } from "node:path";

const major = process.argv[2] ?? "22";
const root = join(import.meta.dirname, "..");
const windows = process.platform === "win32";
/** The npm package that holds Node's binary for this platform. */
const platformPackage = `node-${windows ? "win" : process.platform}-${process.arch}`;
const target = `${platformPackage}@${major}`;

/** The folder holding Node `major`'s `bin/` and `include/`, fetched once. */
function fetchNode() {
  const cache = join(root, "node_modules", ".cache", "engram-node", major);
  const home = join(cache, "package");
  if (existsSync(join(home, "bin"))) return home;
  mkdirSync(cache, { recursive: true });
  try {
    execFileSync("npm", ["pack", target, "--pack-destination", cache, "--loglevel=error"], {
      stdio: ["ignore", "ignore", "inherit"],
      shell: windows,
    });
  } catch {
    throw new Error(
      `npm could not fetch ${target} from the registry (above: why). Another major may exist for this platform: npm view ${platformPackage} versions`,
    );
  }
  const tarball = readdirSync(cache).find((name) => name.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack ${target} left no tarball in ${cache}`);
  execFileSync("tar", ["-xzf", join(cache, tarball), "-C", cache]);
  rmSync(join(cache, tarball));
  return home;
}

const home = fetchNode();
const bin = join(home, "bin");
const node = join(bin, windows ? "node.exe" : "node");
const env = {
  ...process.env,
  // Run through the root's `npm run test:node` (`pnpm exec`): pnpm and turbo are on PATH.
  PATH: `${bin}${delimiter}${process.env.PATH ?? ""}`,
  // npm and pnpm hand scripts the Node they run under in these, and node-gyp builds for it.
  NODE: node,
  npm_node_execpath: node,
  // Compiled here, against these headers: no prebuilt binary or headers fetched from GitHub or
  // nodejs.org (only the npm registry is ours to download from).
  npm_config_nodedir: home,
  npm_config_build_from_source: "true",
};
const version = execFileSync(node, ["--version"], {
  encoding: "utf8",
}).trim();
console.log(`\n── the tests again under Node ${version} (${target}) ──\n`);

const sqlite = dirname(
  createRequire(join(root, "packages", "store-sqlite", "package.json")).resolve(
    "better-sqlite3/package.json",
  ),
);
const addon = join(sqlite, "build", "Release", "better_sqlite3.node");
// Outside build/: node-gyp empties that folder before it compiles.
const kept = join(root, "node_modules", ".cache", "engram-node", `machine-${process.version}.node`);
const restore = () => {
  if (!existsSync(kept)) return;
  mkdirSync(dirname(addon), { recursive: true });
  copyFileSync(kept, addon);
  rmSync(kept);
};
restore(); // a run killed outright left the machine's build aside: it goes back first
copyFileSync(addon, kept);
// Interrupted (Ctrl-C reaches the children too): put the build back before going.
for (const signal of ["SIGINT", "SIGTERM"]) {
  process.on(signal, () => {
    restore();
    process.exit(130);
  });
}
let status = 1;
try {
  const pnpm = ["--yes", "pnpm@10.34.8"];
  const rebuilt = spawnSync("npx", [...pnpm, "rebuild", "-r", "better-sqlite3"], {
    cwd: root,
    env,
    stdio: "inherit",
    shell: windows,
  });
  if (rebuilt.status !== 0) throw new Error(`better-sqlite3 did not build for Node ${version}`);
  status =
    spawnSync(node, ["scripts/run-tests.mjs", "--node"], {
      cwd: root,
      env,
      stdio: "inherit",
    }).status ?? 1;
} finally {
  restore();
}
process.exitCode = status;
