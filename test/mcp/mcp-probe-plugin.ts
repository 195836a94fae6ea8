/** A plugin file for the MCP tests, dropped into a plugins folder: its price depends on `copies`, it can fail or take its time. */
export const mcpProbeSource = `import { ApiError, definePlugin, t } from "tollbooth";
export default definePlugin({
  id: "mcp.probe",
  route: "POST /v1/mcp-probe",
  summary: "Echoes a text, copies times.",
  input: t.Object({
    text: t.String({ maxLength: 100 }),
    copies: t.Optional(t.Integer({ minimum: 1, maximum: 3 })),
    fail: t.Optional(t.Boolean()),
    wait_ms: t.Optional(t.Integer({ minimum: 0, maximum: 5000 })),
  }, { additionalProperties: false }),
  output: t.Object({ echoed: t.String() }),
  price: (input) => (input.copies === 3 ? "0.003" : input.copies === 2 ? "0.002" : "0.001"),
  timeoutMs: 8000,
  errors: ["SOURCE_UNREACHABLE"],
  examples: [{ input: { text: "abc" }, output: { echoed: "abc" } }],
  async run({ text, copies, fail, wait_ms }, ctx) {
    if (wait_ms) await new Promise((resolve) => setTimeout(resolve, wait_ms));
    if (fail) throw new ApiError("SOURCE_UNREACHABLE", { message: "The probe failed on purpose." });
    return { echoed: text.repeat(copies ?? 1) };
  },
});
`;
