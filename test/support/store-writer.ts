/**
 * A process that writes receipts and jobs into a data folder as fast as it can, through the
 * store the server uses, one committed pair per sequence number. `bun store-writer.ts DIR`;
 * stops on SIGTERM (and prints how many pairs it committed).
 */
import { openStore } from "../../src/database.ts";
import { createReceiptStore } from "../../src/store/receipts.ts";

const store = openStore(process.argv[2]!);
const receipts = createReceiptStore(store.db);
let stopping = false;
process.on("SIGTERM", () => {
  stopping = true;
});

let seq = 0;
console.log("writing");
while (!stopping) {
  seq++;
  const now = new Date();
  const id = String(seq).padStart(8, "0");
  receipts.reserve({
    id: `rcpt_${id}`,
    network: "eip155:8453",
    asset: "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913",
    payTo: `0x${"ab".repeat(20)}`,
    payer: `0x${"cd".repeat(20)}`,
    amount: "5000",
    nonce: `0x${id.padStart(64, "0")}`,
    validBefore: null,
    requestId: `req_${id}`,
    operationId: "web.read",
    now,
  });
  await store.jobs.insert({ id: `job_${id}`, skill: "word.count", sync: false, input: { text: "x".repeat(200) }, caller: "addr:127.0.0.1", payer: null, network: null, priceMicros: 1000, payment: null, settleMode: "free", requestId: `req_${id}`, createdAt: now });
  // Let the event loop see SIGTERM now and then.
  if (seq % 200 === 0) await Bun.sleep(0);
}
store.close();
console.log(`committed ${seq}`);
