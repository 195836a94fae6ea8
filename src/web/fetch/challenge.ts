/**
 * @module web/fetch/challenge — recognises bot challenges and CAPTCHA walls served instead of content
 * (Cloudflare, DataDome, PerimeterX/HUMAN, Imperva/Incapsula, AWS WAF, Akamai, generic CAPTCHAs),
 * so such a page is an error (BOT_CHALLENGE) and never a paid result.
 */

/** Markers only challenge pages carry (scripts and ids of the vendors' interstitials). */
const VENDOR_MARKERS = [
  /\/cdn-cgi\/challenge-platform\//i,
  /window\._cf_chl_opt/i,
  /id=["']challenge-(form|running|stage|body-text)["']/i,
  /cf-browser-verification/i,
  /captcha-delivery\.com/i, // DataDome
  /px-captcha|perimeterx|_pxCaptcha/i, // PerimeterX / HUMAN
  /_Incapsula_Resource|Incapsula incident ID/i,
  /awsWafCookieDomainList|AwsWafIntegration|\/challenge\.js["'][^>]*aws/i,
  /sec-if-cpt-container|_sec\/cp_challenge/i, // Akamai
];

/** Titles and sentences of interstitials. */
const PHRASES = [
  /<title>\s*(just a moment\.\.\.|attention required! \| cloudflare|please wait\.\.\.|access denied|pardon our interruption|are you a robot\??|human verification|security check|one more step|bot verification|ddos-guard)\s*<\/title>/i,
  /checking (if the site connection is secure|your browser before accessing)/i,
  /verify(ing)? (that )?you are (a )?human/i,
  /please (complete|solve) the (security check|captcha)/i,
  /enable javascript and cookies to continue/i,
  /press (&amp;|&) hold/i,
];

/** CAPTCHA widgets: a wall when the page has little else on it. */
const CAPTCHA_WIDGETS = /class=["'][^"']*\b(g-recaptcha|h-captcha|cf-turnstile)\b|recaptcha\/api\.js|hcaptcha\.com\/1\/api\.js|challenges\.cloudflare\.com\/turnstile/i;

/** A challenge page is small; real articles that merely mention "captcha" are long. */
const MAX_CHALLENGE_TEXT = 2000;
/** Visible text of a page that is only a CAPTCHA or interstitial message. */
const MAX_WALL_TEXT = 600;

export interface ChallengeInput {
  status: number;
  headers: Record<string, string>;
  /** Decoded HTML (or the start of it). */
  html: string;
  /** Visible text of the page when known (shorter = more likely a wall). */
  textLength?: number;
}

/** True when the answer is a bot challenge / CAPTCHA wall instead of content. */
export function isBotChallenge(input: ChallengeInput): boolean {
  if ((input.headers["cf-mitigated"] ?? "").toLowerCase() === "challenge") return true;
  if (input.headers["x-amzn-waf-action"]?.toLowerCase() === "challenge" || input.headers["x-amzn-waf-action"]?.toLowerCase() === "captcha") {
    return true;
  }
  const html = input.html.slice(0, 256 * 1024);
  // Only "more than MAX_CHALLENGE_TEXT" matters, so the count stops there: a long page costs a few KB of scanning.
  const textLength = input.textLength ?? estimateTextLength(html, MAX_CHALLENGE_TEXT);
  if (textLength > MAX_CHALLENGE_TEXT) return false;
  if (VENDOR_MARKERS.some((marker) => marker.test(html))) return true;
  // Phrases and widgets also appear in articles about CAPTCHAs: only a near-empty page counts.
  if (textLength >= MAX_WALL_TEXT) return false;
  return PHRASES.some((phrase) => phrase.test(html)) || CAPTCHA_WIDGETS.test(html);
}

/** Elements whose content is never visible text, and where each ends. */
const HIDDEN_CONTENT = /<(script|style|noscript|template)\b/iy;
const HIDDEN_END: Record<string, RegExp> = {
  script: /<\/script\s*>/gi,
  style: /<\/style\s*>/gi,
  noscript: /<\/noscript\s*>/gi,
  template: /<\/template\s*>/gi,
};

/** `\s` as JavaScript's regular expressions read it. */
function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 || code === 0x1680 || (code >= 0x2000 && code <= 0x200a) || code === 0x2028 || code === 0x2029 ||
    code === 0x202f || code === 0x205f || code === 0x3000 || code === 0xfeff
  );
}

/** Just past the end tag of the hidden element `name` whose content starts at `from`; -1 when it is not closed. */
function indexAfterHidden(html: string, name: string, from: number): number {
  const end = HIDDEN_END[name.toLowerCase()] as RegExp;
  end.lastIndex = from;
  return end.exec(html) ? end.lastIndex : -1;
}

/**
 * Length of the page's visible text with whitespace collapsed and trimmed (script, style,
 * noscript and template content and every tag count as a space), counted up to just past `cap`.
 */
export function estimateTextLength(html: string, cap = Number.POSITIVE_INFINITY): number {
  let count = 0;
  let space = false;
  let i = 0;
  while (i < html.length && count <= cap) {
    const code = html.charCodeAt(i);
    if (code === 60) {
      HIDDEN_CONTENT.lastIndex = i;
      const hidden = HIDDEN_CONTENT.exec(html);
      const end = hidden ? indexAfterHidden(html, hidden[1] as string, HIDDEN_CONTENT.lastIndex) : -1;
      const tagEnd = end >= 0 ? end : html.indexOf(">", i + 1) + 1;
      if (tagEnd > 0) {
        space = true;
        i = tagEnd;
        continue;
      }
    }
    if (isSpace(code)) space = true;
    else {
      if (space && count > 0) count++;
      space = false;
      count++;
    }
    i++;
  }
  return count;
}
