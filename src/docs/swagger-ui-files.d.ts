// Bun's `with { type: "file" }` import of Swagger UI's assets yields their path (on disk, or inside a compiled binary).
declare module "swagger-ui-dist/swagger-ui-bundle.js" {
  const path: string;
  export default path;
}
declare module "swagger-ui-dist/swagger-ui.css" {
  const path: string;
  export default path;
}
