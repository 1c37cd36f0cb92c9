import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { describe, it } from 'vitest';

/** Debian's Chromium (apt-get install -y chromium; CI installs it), or CHROMIUM_PATH. */
export const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';
export const chromiumAvailable = existsSync(CHROMIUM);

/** Headless Chromium with nothing of its own on the network (no updates, sync or QUIC probes). */
export const launchChromium = (): Promise<Browser> =>
  chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });

/** Where Chromium is missing, one skipped test saying how to get it, instead of a silent skip. */
export function noteMissingChromium(what: string): void {
  if (chromiumAvailable) return;
  describe(what, () => {
    it.skip(`needs Chromium at ${CHROMIUM}: apt-get install -y chromium (CI installs it)`, () => {});
  });
}
