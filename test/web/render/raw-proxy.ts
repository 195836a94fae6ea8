/** Raw bytes to a guard-proxy port (the base port or a lane), as a browser or anything else on the box could send them. */
import net from "node:net";

/** Sends `request` to 127.0.0.1:`port` and returns everything answered until the socket closes, `until` matches, or 3 s pass. */
export function exchange(port: number, request: string, until?: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => socket.write(request));
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString("latin1");
      if (until?.test(answer)) socket.end();
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", reject);
    setTimeout(() => socket.destroy(), 3_000);
  });
}
