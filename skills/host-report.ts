/** Buys a plain-text report of this host: disk, load, memory and whether it is open for work (no LLM). */
import { statfs } from "node:fs/promises";
import { cpus, freemem, loadavg, totalmem, uptime } from "node:os";
import { defineSkill, t } from "tollbooth";

const gib = (bytes: number) => `${(bytes / 1024 ** 3).toFixed(1)} GiB`;

export default defineSkill({
  skill: "host.report",
  summary: "Text report of the host's disk, load, memory and open_for_work (no LLM).",
  input: t.Object({}, { additionalProperties: false }),
  output: t.String(),
  price: "0.01",
  async: true,
  timeoutMs: 180_000,
  examples: [{ input: {}, output: "open_for_work: yes\nload (1/5/15 min): 0.12 0.08 0.05 on 4 CPUs\nmemory: 2.1 GiB free of 7.8 GiB (73% used)\ndisk (working folder): 40.2 GiB free of 78.0 GiB (48% used)\nuptime: 3.2 days" }],
  async run(_input, ctx) {
    const disk = await statfs(".");
    const [diskTotal, diskFree] = [disk.blocks * disk.bsize, disk.bavail * disk.bsize];
    const manager = ctx.manager();
    const used = (free: number, total: number) => `${Math.round((1 - free / total) * 100)}% used`;
    return [
      `open_for_work: ${manager.openForWork ? "yes" : `no (${manager.pauseReason || "paused"})`}`,
      `load (1/5/15 min): ${loadavg().map((l) => l.toFixed(2)).join(" ")} on ${cpus().length} CPUs`,
      `memory: ${gib(freemem())} free of ${gib(totalmem())} (${used(freemem(), totalmem())})`,
      `disk (working folder): ${gib(diskFree)} free of ${gib(diskTotal)} (${used(diskFree, diskTotal)})`,
      `uptime: ${(uptime() / 86_400).toFixed(1)} days`,
    ].join("\n");
  },
});
