/**
 * /health is held: its text is served again for a second without reading anything (it is the
 * document probes ask for most), and what it shows is never more than that old.
 */
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { testService, type TestService } from "../support/service.ts";

let service: TestService;
beforeAll(async () => {
  service = await testService(["--render", "off", "--extract-workers", "0"]);
});
afterAll(() => service.close());

const health = async () => (await (await service.request("/health")).json()) as { open_for_work: boolean; uptime_sec: number };

describe("/health, held for a second", () => {
  it("answers the same text again at once, then shows a pause within a second and a half", async () => {
    const first = await (await service.request("/health")).text();
    await service.store.settings.pause("maintenance");
    // Held: the pause made a moment ago is not read yet.
    expect(await (await service.request("/health")).text()).toBe(first);
    const deadline = performance.now() + 1500;
    let seen = await health();
    while (seen.open_for_work && performance.now() < deadline) {
      await Bun.sleep(50);
      seen = await health();
    }
    expect(seen.open_for_work).toBe(false);
    await service.store.settings.resume();
  });
});
