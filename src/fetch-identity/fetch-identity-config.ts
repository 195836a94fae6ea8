/**
 * @module fetch-identity/fetch-identity-config — the fetcher's Web Bot Auth switch, as rows for
 * src/config.ts's table (`...fetchIdentityConfigFields`), and what stops a configuration using it.
 */
import { Type as t } from "@sinclair/typebox";

export const fetchIdentityConfigFields = {
  fetchIdentity: t.Union([t.Literal("on"), t.Literal("off")], {
    default: "off",
    description:
      "on: every page fetch (read, map, search reads, robots.txt, the browser's requests when rendering) is signed with Web Bot Auth (RFC 9421 HTTP Message Signatures, Ed25519, the evidence key) and names --public-url in Signature-Agent; the keys are published at /.well-known/http-message-signatures-directory. Needs --public-url. See docs/fetch-identity.md.",
  }),
};

/** The problem with this configuration, if any (fetch identity on without a public URL to name). */
export function fetchIdentityProblem(config: { fetchIdentity: "on" | "off"; publicUrl?: string }): string | undefined {
  if (config.fetchIdentity === "on" && !config.publicUrl) {
    return "--fetch-identity: on needs --public-url (Signature-Agent names it, and sites fetch the key directory from it)";
  }
  return undefined;
}
