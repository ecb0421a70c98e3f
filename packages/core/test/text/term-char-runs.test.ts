import { afterEach, describe, expect, it, vi } from "vitest";
import { termCharRuns } from "../../scripts/term-char-runs.js";
import { TERM_CHAR_RUNS, TERM_CHAR_UNICODE } from "../../src/text/term-char-runs.js";

/** A fresh copy of the analyzer's character classes, as a process of this Unicode version loads it. */
async function charClassUnder(unicode: string) {
  vi.resetModules();
  vi.stubGlobal("process", { ...process, versions: { ...process.versions, unicode } });
  return import("../../src/text/char-class.js");
}

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe("term character runs", () => {
  it("are what this Node's regex gives (regenerate: pnpm --filter @engram/core run term-char-runs)", (ctx) => {
    if (process.versions.unicode !== TERM_CHAR_UNICODE) {
      ctx.skip(
        `the table was read from Unicode ${TERM_CHAR_UNICODE}, this Node has ${process.versions.unicode}: the analyzer uses the regex here`,
      );
    }
    expect(TERM_CHAR_RUNS).toEqual(termCharRuns());
  });

  it("are used by a runtime of their Unicode version, and a runtime of another falls back to the regex", async () => {
    expect((await charClassUnder(TERM_CHAR_UNICODE)).charClassSource).toBe("table");
    expect((await charClassUnder("1.0")).charClassSource).toBe("regex");
  });

  it("classify every BMP code point as the regex does on either path", async () => {
    const term = /^[\p{L}\p{M}\p{N}]$/u;
    for (const unicode of [TERM_CHAR_UNICODE, "1.0"]) {
      const { charClass, SEPARATOR } = await charClassUnder(unicode);
      const { scriptClass } = await import("../../src/text/script.js");
      const wrong: string[] = [];
      for (let cp = 0; cp < 0x10000; cp++) {
        const lone = cp >= 0xd800 && cp <= 0xdfff;
        const expected = !lone && term.test(String.fromCodePoint(cp)) ? scriptClass(cp) : SEPARATOR;
        if (charClass(cp) !== expected) wrong.push(cp.toString(16));
      }
      expect(wrong, `path of Unicode ${unicode}`).toEqual([]);
      expect(charClass(0x20000)).toBe(scriptClass(0x20000)); // 𠀀
      expect(charClass(0x1f600)).toBe(SEPARATOR); // 😀
      expect(charClass(0x10ffff)).toBe(SEPARATOR);
    }
  });
});
