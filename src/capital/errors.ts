/** @module capital/errors — the capital board's public error codes (listed in /openapi.json with every code). */
import { defineErrors } from "../module/define.ts";

export const errors = defineErrors({
  CAPITAL_TICKET_NOT_FOUND: { status: 404, message: "No such capital ticket; see GET /v1/capital/tickets. Nothing was charged." },
  CAPITAL_TICKET_CLOSED: { status: 410, message: "This capital ticket is closed (expired or cancelled); nothing was charged." },
  CAPITAL_TICKET_FULL: { status: 410, message: "Every seat of this capital ticket is taken; nothing was charged." },
  CAPITAL_SEATS_UNAVAILABLE: { status: 409, message: "Fewer seats are left on this ticket than asked for; ask for at most seats_left. Nothing was charged." },
});
