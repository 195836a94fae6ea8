/**
 * @module fetch-identity/module — the fetcher's Web Bot Auth identity as one feature module: with
 * --fetch-identity on (and so --public-url) it serves the key directory sites check our signatures
 * against (signatures-directory.ts), and /openapi.json lists it (`docs["fetch-identity"]`). The
 * signer itself is built by boot.ts into the web engine.
 */
import { defineModule, type ModuleDeps } from "../module/define.ts";
import { type DirectoryKeys, signaturesDirectoryPath, signaturesDirectoryResponse } from "./signatures-directory.ts";

export interface FetchIdentityDocs {
  /** Whether GET /.well-known/http-message-signatures-directory is served. */
  readonly signaturesDirectory: boolean;
}

declare module "../module/define.ts" {
  interface ModuleDocs {
    readonly "fetch-identity": FetchIdentityDocs;
  }
}

export default defineModule({
  id: "fetch-identity",
  serve: ({ config, evidenceKeys }: ModuleDeps & { readonly config: { readonly fetchIdentity?: "on" | "off" | undefined; readonly publicUrl?: string | undefined }; readonly evidenceKeys: DirectoryKeys }) => {
    const publicUrl = config.fetchIdentity === "on" ? config.publicUrl : undefined;
    if (publicUrl === undefined) return { docs: { signaturesDirectory: false } satisfies FetchIdentityDocs };
    return {
      docs: { signaturesDirectory: true } satisfies FetchIdentityDocs,
      routes: [{ method: "GET", path: signaturesDirectoryPath, handle: () => signaturesDirectoryResponse(evidenceKeys, publicUrl) }],
    };
  },
});
