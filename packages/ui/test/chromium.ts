import { type Browser, chromium } from "playwright-core";

/** Debian's Chromium (`apt-get install -y chromium`): the only browser the tests and bench use. */
export const CHROMIUM = "/usr/bin/chromium";

/**
 * Headless Chromium with the flags this machine needs: no sandbox (root), no GPU, and none of the
 * background connections a closed network refuses. Playwright makes a fresh profile per launch.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}
