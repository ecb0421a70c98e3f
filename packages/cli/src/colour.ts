import { styleText } from "node:util";

/** Styles for one output stream; each returns its text unchanged when colour is off. */
export interface Palette {
  enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  yellow(text: string): string;
  green(text: string): string;
  cyan(text: string): string;
}

/**
 * Whether to colour what goes to `stream`: `FORCE_COLOR` (any value but `0`/`false`) turns it on
 * even into a pipe; `NO_COLOR` (any non-empty value, https://no-color.org) turns it off; otherwise
 * only on a terminal that has colours (`TERM=dumb` has none). Node's own `hasColors` applies the
 * same variables, so engram agrees with Node's own output.
 */
export function colourEnabled(
  stream: { isTTY?: boolean; hasColors?: (env?: object) => boolean },
  env: NodeJS.ProcessEnv,
): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== "") return force !== "0" && force !== "false";
  if (env.NO_COLOR) return false;
  if (!stream.isTTY) return false;
  return typeof stream.hasColors === "function" ? stream.hasColors(env) : env.TERM !== "dumb";
}

/** The styles for `stream` (util.styleText, built into Node ≥ 20.12; no dependency). */
export function palette(
  stream: { isTTY?: boolean; hasColors?: (env?: object) => boolean },
  env: NodeJS.ProcessEnv,
): Palette {
  const enabled = colourEnabled(stream, env);
  // Node ≥ 22.13 checks process.stdout itself unless told not to; engram decided above, per stream.
  const styled = styleText as (format: string, text: string, options?: object) => string;
  const style =
    (format: string) =>
    (text: string): string =>
      enabled && text ? styled(format, text, { validateStream: false }) : text;
  return {
    enabled,
    bold: style("bold"),
    dim: style("dim"),
    red: style("red"),
    yellow: style("yellow"),
    green: style("green"),
    cyan: style("cyan"),
  };
}
