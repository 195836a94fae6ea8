/**
 * @module docs/api-reference — `/docs`: the interactive API reference for people, Swagger UI
 * through @elysiajs/openapi, pointed at our own `/openapi.json` (so the x402 extensions,
 * prices and error codes are the ones agents read) rather than at a document Elysia would
 * derive from its routes. Swagger UI's script and stylesheet are served from the binary, never
 * from a CDN. "Try it out" on a paid route answers with the free 402 price preview.
 */
import { openapi } from "@elysiajs/openapi";
import { Elysia } from "elysia";
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };
import { contextOf } from "../http/request-context.ts";
import { fileBody } from "../runtime/files.ts";

const assetCache = { "Cache-Control": "public, max-age=86400" };

/** The page, rendered once by the plugin in an app of its own: only its HTML is used, not its spec route. */
async function renderDocsPage(title: string, version: string): Promise<string> {
  const plugin = new Elysia().use(
    openapi({
      path: "/docs",
      provider: "swagger-ui",
      documentation: { info: { title: `${title} API`, version, description: "x402 pay-per-call API reference" } },
      swagger: {
        url: "/openapi.json",
        cdn: "/docs/swagger-ui-bundle.js",
        theme: "/docs/swagger-ui.css",
        autoDarkMode: false,
        tryItOutEnabled: true,
        showExtensions: true,
        showCommonExtensions: true,
        displayOperationId: true,
        displayRequestDuration: true,
        defaultModelsExpandDepth: 1,
      } as Record<string, unknown>,
    }),
  );
  return (await plugin.handle(new Request("http://docs.invalid/docs"))).text();
}

export function mountApiReference(app: Elysia, info: { title: string; version: string }): void {
  let page: Promise<string> | undefined;
  app.get("/docs", async ({ request }) => {
    contextOf(request).route = "/docs";
    page ??= renderDocsPage(info.title, info.version);
    return new Response(await page, { headers: { "content-type": "text/html; charset=utf-8" } });
  });
  app.get("/docs/swagger-ui-bundle.js", ({ request }) => {
    contextOf(request).route = "/docs/swagger-ui-bundle.js";
    return new Response(fileBody(swaggerBundle), { headers: { "content-type": "text/javascript; charset=utf-8", ...assetCache } });
  });
  app.get("/docs/swagger-ui.css", ({ request }) => {
    contextOf(request).route = "/docs/swagger-ui.css";
    return new Response(fileBody(swaggerCss), { headers: { "content-type": "text/css; charset=utf-8", ...assetCache } });
  });
}
