import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";

/** One static file of the page, served from memory. */
export interface Asset {
  body: Uint8Array<ArrayBuffer>;
  type: string;
}

/** The page's stylesheet and script, by their content-hashed URLs. */
export interface Assets {
  css: string;
  js: string;
  byUrl: Map<string, Asset>;
}

/**
 * Read the shipped assets (`assets/app.css`, `assets/app.js` in the package: plain files, no
 * build step) and name each by its content hash, so browsers may cache them for good.
 */
export async function loadAssets(): Promise<Assets> {
  const byUrl = new Map<string, Asset>();
  const load = async (name: string, type: string) => {
    const body = new Uint8Array(await readFile(new URL(`../assets/${name}`, import.meta.url)));
    const hash = createHash("sha256").update(body).digest("hex").slice(0, 12);
    const dot = name.lastIndexOf(".");
    const url = `/assets/${name.slice(0, dot)}.${hash}${name.slice(dot)}`;
    byUrl.set(url, { body, type });
    return url;
  };
  const [css, js] = await Promise.all([
    load("app.css", "text/css; charset=utf-8"),
    load("app.js", "text/javascript; charset=utf-8"),
  ]);
  return { css, js, byUrl };
}
