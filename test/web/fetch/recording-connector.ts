/** A connector that records every connection attempt before (optionally) opening it for real. */
import type { ConnectRequest, Connector } from "../../../src/web/fetch/http-connector.ts";
import { createPinnedConnector, type ConnectorOptions } from "../../../src/web/fetch/http-connector.ts";

export interface RecordingConnector {
  connector: Connector;
  /** `${address}:${port} ${url}` of every attempt, in order. */
  attempts: string[];
}

export function createRecordingConnector(options: ConnectorOptions = {}): RecordingConnector {
  const real = createPinnedConnector(options);
  const attempts: string[] = [];
  const connector: Connector = (request: ConnectRequest) => {
    attempts.push(`${request.address}:${request.port} ${request.url.href}`);
    // Safety net for the test run itself: never let a packet leave for a non-loopback address.
    if (!request.address.startsWith("127.")) {
      return Promise.reject(new Error(`test connector refused to connect to ${request.address}`));
    }
    return real(request);
  };
  return { connector, attempts };
}
