/**
 * @module doctor/fetch-identity — `tollbooth doctor`'s line for the fetcher's Web Bot Auth identity
 * (`--fetch-identity on`, docs/fetch-identity.md): the public URL that Signature-Agent names, the
 * signing key in the data folder (the evidence key), and the key directory as sites will fetch it:
 * asked of the server running on this data folder at the directory URL's path, with the public
 * URL's Host, it must answer the directory listing the current key.
 */
import { readEvidenceKeyFile } from "../evidence/key-file.ts";
import { signaturesDirectoryMediaType, signaturesDirectoryPath } from "../fetch-identity/signatures-directory.ts";
import { liveServerMark } from "../store/server-lock.ts";
import type { Check, CheckResult } from "./check.ts";

const name = "fetch identity";

export const checkFetchIdentity: Check = async (config): Promise<CheckResult> => {
  if (config.fetchIdentity !== "on") return { name, status: "ok", detail: "off (--fetch-identity on signs every page fetch with Web Bot Auth; needs --public-url)" };
  if (!config.publicUrl) return { name, status: "fail", detail: "--fetch-identity on needs --public-url: Signature-Agent names it and sites fetch the key directory from it" };
  const directory = new URL(signaturesDirectoryPath, config.publicUrl);
  const notes: string[] = [];
  if (new URL(config.publicUrl).pathname.replace(/\/+$/, "") !== "") {
    notes.push(`sites fetch the directory at ${directory.href}, outside --public-url's path: route it to this server`);
  }
  let current: string;
  if (config.data === ":memory:") {
    return { name, status: "warn", detail: `with --data :memory: the signing key is new at each start: sites that keep ${directory.href}'s keys cannot recognise the next one` };
  }
  try {
    current = readEvidenceKeyFile(config.data).current;
  } catch (error) {
    const absent = /no evidence key file/.test((error as Error).message);
    return { name, status: absent ? "warn" : "fail", detail: absent ? `no signing key in ${config.data} yet: the server makes one at its first start and publishes it at ${directory.href}` : `the signing key cannot be read: ${(error as Error).message}` };
  }
  const mark = liveServerMark(config.data);
  if (!mark) return { name, status: notes.length ? "warn" : "ok", detail: [`key ${current}, public URL ${config.publicUrl}; no running server on ${config.data} to ask for ${directory.pathname}`, ...notes].join("; ") };
  const local = `http://127.0.0.1:${mark.port}${directory.pathname}`;
  try {
    const response = await fetch(local, { headers: { host: directory.host }, signal: AbortSignal.timeout(3000) });
    const type = response.headers.get("content-type") ?? "";
    if (response.status !== 200 || !type.startsWith(signaturesDirectoryMediaType)) {
      return { name, status: "fail", detail: `the running server answers ${directory.pathname} with ${response.status} ${type || "(no content type)"}: was it started with --fetch-identity on and --public-url ${config.publicUrl}?` };
    }
    const kids = ((await response.json()) as { keys?: { kid?: string }[] }).keys?.map((k) => k.kid) ?? [];
    if (!kids.includes(current)) return { name, status: "fail", detail: `the running server's directory does not list the current key ${current} (it lists ${kids.join(", ") || "none"}): restart it after a key rotation` };
    return { name, status: notes.length ? "warn" : "ok", detail: [`${directory.pathname} served on port ${mark.port} (as ${directory.href}) lists the current key ${current}`, ...notes].join("; ") };
  } catch (error) {
    return { name, status: "fail", detail: `the running server does not answer ${local}: ${(error as Error).message}` };
  }
};
