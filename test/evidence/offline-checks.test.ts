/**
 * The saved vector (test/fixtures/evidence/vector.json: a result signed by a key since rotated out,
 * and the JWK Set still publishing it) checked three ways that must agree: `tollbooth verify`, the
 * WebCrypto snippet of docs/evidence.md (under Bun and under Node) and its Python check. One changed
 * byte of text, a changed hash, a changed URL, an unknown key and a broken signature each fail at
 * their part; the rotated-out key verifies while its public key is published. The web/extract vector
 * (extract-vector.json) is checked the same three ways: a changed value, quote, offset, unsupported
 * claim or partial flag fails at the extraction, and a changed byte of its text at the text.
 */
import { afterAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pythonCheck, webCryptoCheck } from "../../src/evidence/check-snippets.ts";
import { renderLlmsTxt } from "../../src/docs/markdown.ts";
import { repoRoot } from "../support/binary-build.ts";
import { skipWithout } from "../support/requirements.ts";

type Json = Record<string, unknown>;
const vector = JSON.parse(readFileSync(join(repoRoot, "test/fixtures/evidence/vector.json"), "utf8")) as { result: Json & { attestation: { jws: string; kid: string } }; jwks: { keys: Json[] }; source_file: string };
const evidenceDoc = readFileSync(join(repoRoot, "docs/evidence.md"), "utf8");
const tmp = mkdtempSync(join(tmpdir(), "tb-evidence-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The fenced block right after `<!-- evidence-check:NAME -->` in docs/evidence.md (the README links it). */
function docBlock(name: string): string {
  const match = new RegExp(`<!-- evidence-check:${name} -->\\n\`\`\`[a-z]+\\n([\\s\\S]*?)\\n\`\`\``).exec(evidenceDoc);
  if (!match) throw new Error(`docs/evidence.md has no evidence-check:${name} block`);
  return match[1]!;
}

const { result, jwks } = vector;
const text = String(result.text);
const middle = Math.floor(text.length / 2);
const [h, p, s] = result.attestation.jws.split(".");
const flipped = s![10] === "A" ? "B" : "A";
const cases: { name: string; result: Json; jwks: { keys: Json[] }; expect: string }[] = [
  { name: "as saved, signed by a rotated-out key still published", result, jwks, expect: "ok" },
  { name: "one changed byte of text", result: { ...result, text: `${text.slice(0, middle)}${text[middle] === "x" ? "y" : "x"}${text.slice(middle + 1)}` }, jwks, expect: "text" },
  { name: "a changed text hash", result: { ...result, text_sha256: "f".repeat(64) }, jwks, expect: "text_sha256" },
  { name: "a changed URL", result: { ...result, url: "https://tollbooth.example/other" }, jwks, expect: "url" },
  { name: "an unknown key (the retired key no longer published)", result, jwks: { keys: jwks.keys.filter((k) => k.kid !== result.attestation.kid) }, expect: "kid" },
  { name: "a broken signature", result: { ...result, attestation: { ...result.attestation, jws: `${h}.${p}.${s!.slice(0, 10)}${flipped}${s!.slice(11)}` } }, jwks, expect: "signature" },
  { name: "a changed Markdown byte", result: { ...result, markdown: `${String(result.markdown)} ` }, jwks, expect: "markdown" },
];

const extractVector = JSON.parse(readFileSync(join(repoRoot, "test/fixtures/evidence/extract-vector.json"), "utf8")) as { result: Json & { data: Json; evidence: Json[]; unsupported: Json[] }; jwks: { keys: Json[] } };
const extracted = extractVector.result;
const [firstEvidence] = extracted.evidence as [Json & { quote: string; start: number }];
cases.push(
  { name: "web/extract as saved", result: extracted, jwks: extractVector.jwks, expect: "ok" },
  { name: "web/extract with keys in another order (the same canonical JSON)", result: { ...extracted, data: Object.fromEntries(Object.entries(extracted.data).reverse()) }, jwks: extractVector.jwks, expect: "ok" },
  { name: "web/extract with a changed value", result: { ...extracted, data: { ...extracted.data, published_on: "Tuesday" } }, jwks: extractVector.jwks, expect: "extraction" },
  { name: "web/extract with a changed quote", result: { ...extracted, evidence: [{ ...firstEvidence, quote: `${firstEvidence.quote} ` }, ...extracted.evidence.slice(1)] }, jwks: extractVector.jwks, expect: "extraction" },
  { name: "web/extract with a changed offset", result: { ...extracted, evidence: [{ ...firstEvidence, start: firstEvidence.start + 1 }, ...extracted.evidence.slice(1)] }, jwks: extractVector.jwks, expect: "extraction" },
  { name: "web/extract with an unsupported claim removed", result: { ...extracted, unsupported: extracted.unsupported.slice(1) }, jwks: extractVector.jwks, expect: "extraction" },
  { name: "web/extract with partial turned false", result: { ...extracted, partial: false }, jwks: extractVector.jwks, expect: "extraction" },
  { name: "web/extract with a changed byte of text", result: { ...extracted, text: String(extracted.text).replace("Monday", "Monday.") }, jwks: extractVector.jwks, expect: "text" },
  { name: "a signed web/read with an extraction added beside its text", result: { ...result, data: extracted.data, evidence: extracted.evidence, unsupported: extracted.unsupported, partial: extracted.partial }, jwks, expect: "extraction" },
);

describe("the saved vector", () => {
  it("is signed by a key that is rotated out but still published", () => {
    expect(jwks.keys.map((k) => k.kid)).toContain(result.attestation.kid);
    expect(jwks.keys[0]!.kid).not.toBe(result.attestation.kid);
  });
});

describe("docs/evidence.md and /llms.txt print the same checks", () => {
  it("its blocks are the snippets /llms.txt serves", () => {
    expect(docBlock("js")).toBe(webCryptoCheck);
    expect(docBlock("python")).toBe(pythonCheck);
    const llms = renderLlmsTxt({ catalogue: { operations: [], skills: [] } as never, payments: { enabled: false, networks: [] } as never, baseUrl: "http://127.0.0.1:8402" });
    expect(llms).toContain(webCryptoCheck);
    expect(llms).toContain(pythonCheck);
  });
});

describe("the documented WebCrypto check", () => {
  const check = new Function(`${docBlock("js")}\nreturn checkEvidence;`)() as (r: Json, k: { keys: Json[] }) => Promise<string>;
  for (const c of cases) {
    it(`${c.name}: ${c.expect} (Bun)`, async () => {
      expect(await check(c.result, c.jwks)).toBe(c.expect);
    });
  }
  it("gives the same answers under Node", async () => {
    const file = join(tmp, "check.mjs");
    writeFileSync(file, `${docBlock("js")}\nconst cases = JSON.parse(require("node:fs").readFileSync(0, "utf8"));\nfor (const c of cases) console.log(await checkEvidence(c.result, c.jwks));\n`.replace("require(\"node:fs\")", "(await import(\"node:fs\"))"));
    const proc = Bun.spawn(["node", file], { stdin: new TextEncoder().encode(JSON.stringify(cases)), stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(err.replace(/.*ExperimentalWarning.*\n?|.*--trace-warnings.*\n?/g, "")).toBe("");
    expect(code).toBe(0);
    expect(out.trim().split("\n")).toEqual(cases.map((c) => c.expect));
  });
});

describe("the documented Python check", () => {
  // Python's standard library has no Ed25519; the check needs the cryptography package.
  it.skipIf(skipWithout("python-cryptography", "the documented Python evidence check"))("gives the same answer for every case", async () => {
    const file = join(tmp, "check.py");
    writeFileSync(file, `${docBlock("python")}\n\nimport sys\nfor c in json.load(sys.stdin): print(check_evidence(c["result"], c["jwks"]))\n`);
    const proc = Bun.spawn(["python3", file], { stdin: new TextEncoder().encode(JSON.stringify(cases)), stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(err).toBe("");
    expect(code).toBe(0);
    expect(out.trim().split("\n")).toEqual(cases.map((c) => c.expect));
  });
});

describe("tollbooth verify", () => {
  async function verify(c: { result: Json; jwks: { keys: Json[] } }, extra: string[] = []) {
    const resultFile = join(tmp, "result.json");
    const jwksFile = join(tmp, "jwks.json");
    writeFileSync(resultFile, JSON.stringify(c.result));
    writeFileSync(jwksFile, JSON.stringify(c.jwks));
    const proc = Bun.spawn([process.execPath, join(repoRoot, "src/main.ts"), "verify", resultFile, "--jwks", jwksFile, ...extra], { stdout: "pipe", stderr: "pipe" });
    const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { out, err, code };
  }
  for (const c of cases) {
    it(`${c.name}: exit ${c.expect === "ok" ? 0 : 1}${c.expect === "ok" ? "" : `, names ${c.expect}`}`, async () => {
      const { out, err, code } = await verify(c);
      expect(err).toBe("");
      if (c.expect === "ok") {
        expect(code).toBe(0);
        expect(out).toContain("VALID");
      } else {
        expect(code).toBe(1);
        expect(out).toContain(`INVALID: ${c.expect} does not hold`);
      }
    });
  }
  it("checks the source bytes when given, and names the source when they differ", async () => {
    const good = await verify(cases[0]!, ["--source", join(repoRoot, vector.source_file)]);
    expect(good.code).toBe(0);
    expect(good.out).toMatch(/ok +source:/);
    const bad = await verify(cases[0]!, ["--source", join(repoRoot, "README.md")]);
    expect(bad.code).toBe(1);
    expect(bad.out).toContain("INVALID: source does not hold");
  });
  it("checks the seller's answer in what `tollbooth buy` printed, and fails it when it was changed", async () => {
    const printed = (result: Json) => ({ result: { status: 200, paid: { usd: 0.005 }, receipt: { success: true }, evidence: { valid: true }, result }, jwks });
    const good = await verify(printed(result));
    expect(good.code).toBe(0);
    expect(good.out).toContain("VALID");
    const changed = await verify(printed(cases[1]!.result));
    expect(changed.code).toBe(1);
    expect(changed.out).toContain("INVALID: text does not hold");
  });
  it("refuses a file that is no signed result (exit 1, the part named) and an unreadable one (exit 2)", async () => {
    const malformed = await verify({ result: { ok: true, text: "x" }, jwks });
    expect(malformed.code).toBe(1);
    expect(malformed.out).toContain("FAILED attestation");
    const proc = Bun.spawn([process.execPath, join(repoRoot, "src/main.ts"), "verify", join(tmp, "missing.json"), "--jwks", join(tmp, "jwks.json")], { stdout: "pipe", stderr: "pipe" });
    expect(await proc.exited).toBe(2);
    expect(await new Response(proc.stderr).text()).toContain("cannot read result file");
  });
});
