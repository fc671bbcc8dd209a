// Debian's Chromium, headless, driven by playwright-core (no browser is ever downloaded).
// The flags keep it off the network this machine does not have: without them Chromium
// tries Google's hosts at every start.
import { chromium } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-dev-shm-usage",
];

/** Launches Chromium; a start that fails or takes longer than `timeout` ms is tried again, twice at most. */
export async function launchChromium({ timeout = 60_000, attempts = 3 } = {}) {
  let last;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      return await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout });
    } catch (e) {
      last = e;
      console.error(`# chromium did not start (attempt ${attempt} of ${attempts}): ${e.message.split("\n")[0]}`);
    }
  }
  throw last;
}
