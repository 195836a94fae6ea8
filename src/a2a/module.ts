/**
 * @module a2a/module — the A2A face as a feature module: its tasks table and the sweep that purges
 * finished tasks a week after their last change. POST /a2a itself is still mounted by app.ts.
 */
import { defineModule } from "../module/define.ts";
import { a2aTaskRetentionMs } from "./task-store.ts";
import { tables } from "./tables.ts";

export default defineModule({
  id: "a2a",
  tables,
  // Finished A2A tasks a week after their last change (their owner may still poll them until then).
  sweep: { everyMs: 60_000, run: (store, now) => store.a2aTasks.purgeFinished(new Date(now.getTime() - a2aTaskRetentionMs)) },
});
