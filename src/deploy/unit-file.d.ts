// Bun's `with { type: "text" }` import of the systemd unit files in deploy/ yields their text (bundled into the binary).
declare module "*.service" {
  const text: string;
  export default text;
}
declare module "*.timer" {
  const text: string;
  export default text;
}
