/**
 * @module web/challenge — recognises bot challenges and CAPTCHA walls served instead of content
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
  const textLength = input.textLength ?? estimateTextLength(html);
  if (textLength > MAX_CHALLENGE_TEXT) return false;
  if (VENDOR_MARKERS.some((marker) => marker.test(html))) return true;
  // Phrases and widgets also appear in articles about CAPTCHAs: only a near-empty page counts.
  if (textLength >= MAX_WALL_TEXT) return false;
  return PHRASES.some((phrase) => phrase.test(html)) || CAPTCHA_WIDGETS.test(html);
}

function estimateTextLength(html: string): number {
  return html
    .replace(/<(script|style|noscript|template)\b[\s\S]*?<\/\1\s*>/gi, " ")
    .replace(/<[^>]*>/g, " ")
    .replace(/\s+/g, " ")
    .trim().length;
}
