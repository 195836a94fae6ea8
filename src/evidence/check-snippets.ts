/**
 * @module evidence/check-snippets — the stand-alone checks of a signed result that docs/evidence.md and
 * /llms.txt print: plain WebCrypto (JavaScript) and Python. They need nothing of ours; tests run
 * the copies in docs/evidence.md against a saved vector, and compare them with these.
 */

export const webCryptoCheck = `// checkEvidence(result, jwks) -> "ok" or the part that fails; plain WebCrypto (Node 20+, Bun, Deno, browsers).
// For a batch, check each item of result.results that has ok: true.
async function checkEvidence(result, jwks) {
  const bytes = (s) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
  const json = (s) => JSON.parse(new TextDecoder().decode(bytes(s)));
  const sha256 = async (text) => [...new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text.toWellFormed())))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  // RFC 8785 canonical JSON of parsed JSON: keys sorted by UTF-16 code units, ECMAScript number and string forms.
  const canon = (v) => Array.isArray(v) ? \`[\${v.map(canon).join(",")}]\`
    : v !== null && typeof v === "object" ? \`{\${Object.entries(v).map(([k, x]) => [k.toWellFormed(), x]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, x]) => JSON.stringify(k) + ":" + canon(x)).join(",")}}\`
    : JSON.stringify(typeof v === "string" ? v.toWellFormed() : v);
  const [h, p, s] = result.attestation.jws.split(".");
  const header = json(h), claims = json(p);
  if (header.alg !== "EdDSA" || header.typ !== "tollbooth-evidence+jws") return "header";
  const jwk = jwks.keys.find((k) => k.kid === header.kid);
  if (!jwk || header.kid !== result.attestation.kid) return "kid";
  const key = await crypto.subtle.importKey("jwk", { kty: "OKP", crv: "Ed25519", x: jwk.x }, { name: "Ed25519" }, false, ["verify"]);
  if (!(await crypto.subtle.verify({ name: "Ed25519" }, key, bytes(s), new TextEncoder().encode(h + "." + p)))) return "signature";
  for (const f of ["url", "final_url", "source_status", "fetched_at", "content_type", "source_sha256", "text_sha256", "markdown_sha256", "selector", "version"])
    if (f in result && result[f] !== claims[f]) return f;
  if (typeof result.text === "string" && (await sha256(result.text)) !== claims.text_sha256) return "text";
  if (typeof result.markdown === "string" && (await sha256(result.markdown)) !== claims.markdown_sha256) return "markdown";
  const shown = ["data", "evidence", "unsupported", "partial"].filter((f) => f in result); // web/extract
  if (shown.length > 0 && (await sha256(canon(Object.fromEntries(shown.map((f) => [f, result[f]]))))) !== claims.extraction_sha256) return "extraction";
  return "ok";
}`;

export const pythonCheck = `# check_evidence(result, jwks) -> "ok" or the part that fails. Needs the cryptography package
# (pip install cryptography): Python's standard library has no Ed25519. For a batch, check each ok item.
import base64, hashlib, json
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

def b64(s): return base64.urlsafe_b64decode(s + "=" * (-len(s) % 4))
def well_formed(text): return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
def sha256(text):  # of the text as UTF-8, lone surrogates as U+FFFD (JavaScript's toWellFormed)
    return hashlib.sha256(well_formed(text).encode()).hexdigest()

def es_number(n):  # ECMAScript's Number::toString, as RFC 8785 writes numbers
    f = float(n)
    if f == 0: return "0"
    m, _, e = repr(abs(f)).partition("e")
    whole, _, frac = m.partition(".")
    w = whole + frac
    d = w.lstrip("0").rstrip("0")
    k = int(e or 0) + len(whole) - (len(w) - len(w.lstrip("0")))  # value = 0.d * 10**k
    if len(d) <= k <= 21: t = d + "0" * (k - len(d))
    elif 0 < k <= 21: t = d[:k] + "." + d[k:]
    elif -6 < k <= 0: t = "0." + "0" * -k + d
    else: t = d[0] + ("." + d[1:] if len(d) > 1 else "") + "e" + ("+" if k - 1 > 0 else "-") + str(abs(k - 1))
    return ("-" if f < 0 else "") + t

def canon(v):  # RFC 8785 canonical JSON of parsed JSON: keys sorted by UTF-16 code units
    if v is None or isinstance(v, bool): return json.dumps(v)
    if isinstance(v, (int, float)): return es_number(v)
    if isinstance(v, str): return json.dumps(well_formed(v), ensure_ascii=False)
    if isinstance(v, list): return "[" + ",".join(canon(x) for x in v) + "]"
    items = sorted(((well_formed(k), x) for k, x in v.items()), key=lambda kx: kx[0].encode("utf-16-be"))
    return "{" + ",".join(canon(k) + ":" + canon(x) for k, x in items) + "}"

def check_evidence(result, jwks):
    h, p, s = result["attestation"]["jws"].split(".")
    header, claims = json.loads(b64(h)), json.loads(b64(p))
    if header.get("alg") != "EdDSA" or header.get("typ") != "tollbooth-evidence+jws": return "header"
    jwk = next((k for k in jwks["keys"] if k.get("kid") == header.get("kid")), None)
    if jwk is None or header.get("kid") != result["attestation"]["kid"]: return "kid"
    try: Ed25519PublicKey.from_public_bytes(b64(jwk["x"])).verify(b64(s), (h + "." + p).encode())
    except InvalidSignature: return "signature"
    for f in ["url", "final_url", "source_status", "fetched_at", "content_type", "source_sha256", "text_sha256", "markdown_sha256", "selector", "version"]:
        if f in result and result[f] != claims.get(f): return f
    if isinstance(result.get("text"), str) and sha256(result["text"]) != claims.get("text_sha256"): return "text"
    if isinstance(result.get("markdown"), str) and sha256(result["markdown"]) != claims.get("markdown_sha256"): return "markdown"
    shown = {f: result[f] for f in ["data", "evidence", "unsupported", "partial"] if f in result}  # web/extract
    if shown and sha256(canon(shown)) != claims.get("extraction_sha256"): return "extraction"
    return "ok"`;
