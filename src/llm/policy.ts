/**
 * @module llm/policy — the deterministic gate in front of every model skill (spec job-worker §7):
 * explicit requests for malware or abuse tooling, for the host's secrets or other tenants' data,
 * for unbounded scraping, or for illegal content are refused before any price or 402.
 *
 * High precision over recall: a rule fires only on an explicit request (an instruction frame, a
 * harmful act and a real target together), never on a topic alone. "What is ransomware?", "how
 * do I kill a Python process" and "how do I poison someone in a game" pass; the model's own
 * refusal (which fails the job, never settled) stands behind this gate for the rest.
 * Measured on XSTest by scripts/bench/policy-xstest.ts.
 */
import { ApiError } from "../errors.ts";

export type PolicyCategory = "malware" | "exfiltration" | "scraping" | "illegal";

export interface PolicyRefusal {
  readonly category: PolicyCategory;
  readonly reason: string;
}

interface Rule {
  readonly category: PolicyCategory;
  readonly reason: string;
  readonly pattern: RegExp;
  /** Fiction, games and sport make a violent phrase harmless ("kill someone in Call of Duty"). */
  readonly fictionExempt?: boolean;
  /** Words anywhere in the text that make this rule's phrase harmless. */
  readonly unless?: RegExp;
}

/** An instruction frame: the asker wants to do it (not "how did", "what is"). */
const ASK = String.raw`(?:how (?:do|can|could|should|would|might) (?:i|we|one)|how to|ways? (?:of|to)|best (?:way|method|place|strategy|plan)|(?:what|which) (?:steps|tools) (?:should|do|can|must|would|could) (?:i|we)|steps? (?:to|for)|tell me how|teach me|help me|show me how|what can i do to|what do i need to do to|is there a way to|i want to|i need to|where (?:can|could|should|do) i|give me (?:a )?(?:guide|instructions|a plan|steps))`;
/** Not a defence, analysis or explanation of the thing. */
const NOT_DEFENSIVE = String.raw`(?:(?!\b(?:detect|protect|defen[cd]|prevent|remov|analy[sz]|against|explain|about|scann|recover|mitigat|history|what is|how does)).)`;

const HUMAN = String.raw`(?:a |an |the |my |our |his |her |their |some |this |that |all )?(?:(?:ex[- ]?)?(?:wife|husband|spouse|girlfriend|boyfriend|partner|neighbou?r|boss|coworker|co-worker|colleague|classmate|teacher|student|date|friend|roommate|landlord|grand(?:parent|mother|father|ma|pa)|mother|father|mom|mum|dad|sister|brother|son|daughter|family|baby|toddler|child|children|kid|kids)|someone|somebody|anyone|a person|person|people|humans?|(?:a |an )?(?:man|woman|women|men|girl|boy)|cops?|police(?: officers?)?|politicians?|president|prime minister|judge|journalist|immigrants?|refugees?|jews|jewish people|muslims|christians|black people|gay people|roma(?: people)?|population|crowd|village|ex)`;
const HUMAN_POSSESSIVE = String.raw`(?:(?:my |our |his |her |their |a |an |the )?(?:ex[- ]?)?(?:wife|husband|spouse|girlfriend|boyfriend|partner|neighbou?r|boss|coworker|colleague|classmate|teacher|student|date|friend|child|baby|toddler|mother|father|sister|brother)|someone|somebody|a person|a human|a child|a woman|a man|people|human|ex(?: boyfriend| girlfriend| husband| wife)?)'?s?`;
const HARM = String.raw`(?:kill(?:ing)?|murder(?:ing)?|stab(?:bing)?|shoot(?:ing)?|strangl(?:e|ing)|chok(?:e|ing)|poison(?:ing)?|behead(?:ing)?|assassinat(?:e|ing)|execut(?:e|ing)|butcher(?:ing)?|drown(?:ing)?|beat(?:ing)? up|punch(?:ing)?|attack(?:ing)?|hurt(?:ing)?|kidnap(?:ping)?|abduct(?:ing)?|tortur(?:e|ing)|rap(?:e|ing)|eliminat(?:e|ing)|eradicat(?:e|ing)|exterminat(?:e|ing)|wip(?:e|ing) out|annihilat(?:e|ing)|slay(?:ing)?|snip(?:e|ing)|decapitat(?:e|ing)|dismember(?:ing)?|throttl(?:e|ing)|overpower(?:ing)?|do away with|liquidat(?:e|ing)|terminat(?:e|ing)|hunt down|gut|euthani[sz]e|decimat(?:e|ing)|push(?:ing)? \S+ off)`;
const PLACE = String.raw`(?:(?:a |an |the |my |our )?(?:(?:neighbou?r|ex|boss|friend|someone)'?s? )?(?:house|home|school|hospital|church|mosque|synagogue|concert|stadium|airport|mall|office|train|plane|bus|subway|city|village|army base|police station|car|motorbike))`;
const SELF = String.raw`(?:myself|my own (?:life|artery|wrists?)|my (?:cervical )?artery|my wrists?|my life|(?:a )?scars? into my)`;
const DRUG = String.raw`(?:meth(?:amphetamine)?|cocaine|crack(?: cocaine)?|heroin|fentanyl|lsd|mdma|ecstasy(?: pills)?|ketamine|crystal meth|opium|a gram of coke|(?:some |a bag of )?coke|(?:some |a bag of |an ounce of )weed|marihuana|marijuana)`;

const FICTION = /\b(?:video ?games?|games?|gaming|novels?|books?|stor(?:y|ies)|films?|movies?|tv|shows?|plays?|scripts?|screenplay|fiction|fictional|character|role-?play|d&d|dungeons|chess|checkers|poker|cards|sport|judo|boxing|karate|wrestling|mma|fencing|paintball|airsoft|laser tag|call of duty|counter[- ]?strike|gta|grand theft auto|minecraft|fortnite|battlefield|witcher|skyrim|halo|overwatch|valorant|pubg|roblox)\b/;

const rules: readonly Rule[] = [
  // ── malware, ransomware, abuse tooling ─────────────────────────────────────
  {
    category: "malware",
    reason: "asks for malware or abuse tooling",
    pattern: new RegExp(
      String.raw`\b(?:write|create|build|make|code|develop|generate|program|craft|design|give me|deploy|spread|distribute)\b${NOT_DEFENSIVE}{0,40}?\b(?:ransomware|keyloggers?|botnets?|rootkits?|trojans?|computer virus(?:es)?|self[- ]?(?:propagating|replicating) (?:worm|virus|malware|code)|(?:info|password|credential|cookie|wallet) ?stealers?|spyware|stalkerware|cryptojackers?|remote access trojan|malware|exploit kits?|phishing (?:kits?|pages?|sites?|emails?|campaigns?)|(?:ddos|dos) (?:tools?|scripts?|bots?)|credential stuffing (?:tools?|scripts?)|fake login pages?)\b`,
    ),
    // Defensive work on the same nouns ("a keylogger detection script", "ransomware removal steps").
    unless: /\b(?:detection|detector|detect|detecting|defen[cd]\w*|protect\w*|prevent\w*|removal|remover|mitigat\w*|analy[sz]\w*|scanner|signatures?|yara|sigma rules?|honeypot|awareness training|simulation for (?:our|my) (?:staff|employees|team))\b/,
  },
  {
    category: "malware",
    reason: "asks for ransomware behaviour",
    pattern: /\bencrypt\w*\b.{0,40}\b(?:victims?'?s?|someone'?s|their|people'?s|all (?:the )?(?:user'?s?|company'?s?)) files\b.{0,60}\b(?:ransom|bitcoin|pay|monero|decrypt)/,
  },
  {
    category: "malware",
    reason: "asks to evade security tooling with a payload",
    pattern: /\b(?:bypass|evade|avoid|disable|get past)\b.{0,30}\b(?:antivirus|anti-virus|edr|windows defender|av detection|endpoint protection)\b.{0,60}\b(?:payload|malware|virus|trojan|backdoor|implant|undetected)\b|\bundetectable (?:malware|payload|virus|backdoor|keylogger|trojan)\b/,
  },
  {
    category: "malware",
    reason: "asks to attack systems that are not the asker's",
    pattern: new RegExp(
      String.raw`\b${ASK}\b.{0,40}\b(?:(?:launch|run|perform|start|carry out) (?:a )?(?:ddos|dos|denial[- ]of[- ]service)|take down (?:a |the |someone'?s |my (?:competitor|rival)'?s )?(?:website|server|site)|brute[- ]?force (?:someone'?s|their|his|her|my (?:\w+ )?\w+'s) (?:account|password|login|email|instagram|facebook)|hack (?:into )?(?:someone'?s|their|his|her|my (?:\w+ )?\w+'s) (?:account|phone|email|computer|instagram|facebook|wifi|webcam))`,
    ),
  },

  // ── host secrets and other tenants' data ───────────────────────────────────
  {
    category: "exfiltration",
    reason: "asks for this host's secrets",
    pattern:
      /\b(?:print|show|reveal|dump|list|read|cat|send|leak|exfiltrate|output|give me|tell me|upload|post|return|echo|what (?:is|are))\b.{0,40}\b(?:your|the (?:server|host|operator|machine|system|service)'?s?|this (?:server|host|machine|system|service)'?s?)\b.{0,30}\b(?:api[ _-]?keys?|secrets?|environment variables|env vars?|\.env\b|private keys?|wallet (?:keys?|seeds?)|seed phrase|mnemonic|credentials|passwords?|access tokens?|ssh keys?|config(?:uration)? file)/,
  },
  {
    category: "exfiltration",
    reason: "asks for secret files or cloud metadata of the host",
    pattern:
      /(?:\/etc\/shadow|\/proc\/self\/environ|~\/\.ssh\b|\/root\/\.ssh|\bid_rsa\b|\bid_ed25519\b|169\.254\.169\.254|metadata\.google\.internal)/,
  },
  {
    category: "exfiltration",
    reason: "asks for other tenants' data",
    pattern:
      /\b(?:show|read|dump|list|access|get|give me|see|fetch|download|export|steal|what (?:is|are|did))\b.{0,30}\b(?:other|another|all(?: the)?|every) (?:users?|tenants?|customers?|buyers?|callers?|clients?|payers?)'?s?\b.{0,20}\b(?:jobs?|data|prompts?|results?|receipts?|payments?|files?|queries|requests?|answers?|history|wallets?|keys?)\b/,
  },
  {
    category: "exfiltration",
    reason: "asks for another person's private credentials or identifiers",
    pattern: new RegExp(
      String.raw`\b(?:what (?:is|are)|where (?:can|could|do) i (?:find|get|buy)|how (?:can|do|could) i (?:find|get|access|see|read|obtain|steal|guess|crack)|give me|tell me|find (?:me )?)\b.{0,20}\b(?:${HUMAN_POSSESSIVE}|other people'?s|strangers'?|my (?:\w+ ){1,2}\w+'s|my \w+'s) (?:(?:\w+ )?passwords?|(?:iphone |phone |bank |atm |card )?pin(?: code)?|(?:\w+ )?login(?: details)?|(?:\w+ )?credentials|social security numbers?|ssn|credit card (?:details|numbers?)|bank account (?:details|numbers?)|passport numbers?|driver'?s licen[cs]e numbers?|medical records|(?:internet )?browsing history|tax records|home address|private email(?: address)?|(?:mobile )?phone number|private messages|emails|text messages)\b`,
    ),
  },

  // ── unbounded scraping ─────────────────────────────────────────────────────
  {
    category: "scraping",
    reason: "asks for unbounded scraping",
    pattern:
      /\b(?:scrape|scraping|crawl|crawling|harvest|harvesting|download|mirror|collect|extract)\b.{0,30}\b(?:all|every|each|the (?:entire|whole)|entire|whole)\b.{0,30}\b(?:internet|web\b|websites|sites on|profiles?|users?|accounts?|members?|email addresses|emails|phone numbers|linkedin|facebook|instagram|twitter|tiktok|reddit)/,
  },
  {
    category: "scraping",
    reason: "asks to get around a site's limits",
    pattern: /\b(?:ignore|bypass|evade|get around|circumvent|defeat|solve)\b.{0,20}\b(?:robots\.txt|rate[- ]limits?|captchas?|cloudflare|bot (?:detection|protection)|anti-?bot|paywalls?)\b/,
  },

  // ── illegal content ────────────────────────────────────────────────────────
  {
    category: "illegal",
    reason: "asks how to hurt or kill people",
    fictionExempt: true,
    // The person is the act's object (at most two words between), not a possessor ("hurt my wife's feelings").
    pattern: new RegExp(String.raw`\b${ASK}\b.{0,40}?\b${HARM}\s+(?:[\w-]+\s+){0,2}?${HUMAN}\b(?!'|’)`),
    unless: /\b(?:photo\w*|camera|portrait|video|lens|selfie|wedding|footage|scene|shot list)\b/,
  },
  {
    category: "illegal",
    reason: "asks how to hurt or kill people",
    fictionExempt: true,
    pattern: new RegExp(
      String.raw`\b${ASK}\b.{0,40}?\b(?:smash|crush|break|crack|cut|rip|chop|saw|hammer|shatter|split|slash|pierce)\w*\b.{0,25}\b(?:(?:a |an |the |my |someone'?s |somebody'?s |his |her |their |a human'?s? |human |dead |the )?(?:skull|face|spine|sternum|head|neck|throat|ribs?|legs?|kneecaps?|kidneys?|body|bodies|corpse))\b`,
    ),
    unless: /\b(?:fish|shrimps?|prawns?|pig|chicken|meat|cow|deer|animal|log|coconut|wood|lettuce|cabbage|garlic|statue|doll|mannequin)\b/,
  },
  {
    category: "illegal",
    reason: "asks how to commit a violent or serious crime",
    fictionExempt: true,
    pattern: new RegExp(
      String.raw`\b${ASK}\b.{0,40}?\b(?:commit(?:ting)? (?:a |an )?(?:murder|massacre|genocide|arson|armed robbery|robbery|violent assault|assault|rape|treason|terrorism|terrorist attack|(?:bank (?:account )?|tax |insurance |credit card |wire )?fraud|identity theft|burglary|a hate crime|a mass shooting|a school shooting)|get away with (?:murder|rape|a crime|it)|(?:plan|set up|run|start|organi[sz]e)\b.{0,20}\b(?:a |an )?(?:kidnapping|assassination|massacre|murder|terrorist attack|bombing|mass shooting|human trafficking|trafficking operation|heist|robbery)|engag(?:e|ing) in terrorism|launder(?:ing)? money|money laundering|(?:rob|robbing) (?:a |an |the |my )?(?:bank|casino|store|shop|house|gas station|jewel+ery|person|someone|old)|steal(?:ing)? (?:a |an |the |my \w+'?s |someone'?s |people'?s )?(?:car|wallet|purse|credit cards?|identity|bike|phone|playstation|money|catalytic converter|packages?)|stealing without getting caught|break(?:ing)? into (?:a |an |the |my \w+'s |someone'?s )?(?:house|home|car|bank vault|vault|apartment|safe|store)|disable (?:the |an? )?(?:alarm|security system|cameras?) (?:in|of|at) (?:a |the |my \w+'s |someone'?s )?(?:bank|vault|store|house|home|museum)|take (?:\w+ ){0,3}hostage|blow(?:ing)? up ${PLACE}|bomb(?:ing)? ${PLACE}|set(?:ting)? (?:fire to ${PLACE}|${PLACE} on fire)|burn(?:ing)? down ${PLACE}|slash(?:ing)? (?:\w+ ){0,2}tires|destroy(?:ing)? (?:my |someone'?s |his |her )?(?:ex'?s?|boss'?s?|neighbou?r'?s?) (?:car|house|life)|demolish (?:my |someone'?s )?(?:ex|boss|neighbou?r)\w*'?s? (?:car|house)|make (?:someone'?s|a|my \w+'?s) car explode|dispose of (?:a |my |the )?(?:dead )?(?:body|baby|corpse))`,
    ),
  },
  {
    category: "illegal",
    reason: "asks for weapons or explosives",
    fictionExempt: true,
    pattern:
      /\b(?:make|build|assemble|construct|create|3d[- ]print|print)\b.{0,20}\b(?:(?:pipe |nail |car |fertili[sz]er |dirty )?bombs?|explosives?|ied|molotov(?: cocktails?)?|napalm|nerve agent|sarin|ricin|anthrax|bioweapon|chemical weapon|(?:untraceable |ghost )?guns?|firearms?|silencer|suppressor|weapons?)\b(?!.{0,20}\bbath\b)|\bweapons? (?:with|using) a 3d printer\b/,
  },
  {
    category: "illegal",
    reason: "asks how to make or buy illegal drugs",
    pattern: new RegExp(
      String.raw`\b(?:make|cook|synthesi[sz]e|produce|manufacture|extract|brew)\b.{0,15}\b(?:meth(?:amphetamine)?|cocaine|crack|heroin|fentanyl|lsd|mdma|ecstasy|ketamine|crystal meth|opium|dmt|ghb)\b|\b(?:buy|get|getting|score|order|find|sell|selling|deal|dealing)\b (?:some |a gram of |an ounce of |a bag of |an? )?${DRUG}\b(?! (?:can|bottle|zero|cola))`,
    ),
  },
  {
    category: "illegal",
    reason: "sexual content involving minors",
    pattern:
      /\b(?:child|children|kid|kids|minor|minors|underage|preteen|teen|12[- ]year[- ]old|13[- ]year[- ]old|14[- ]year[- ]old)\b.{0,30}\b(?:sex|sexual|nude|nudes|naked|porn|pornography|erotic)\b|\b(?:sex|sexual|nude|naked|porn|erotic)\b.{0,30}\b(?:with )?(?:child|children|kid|kids|minor|minors|underage|preteen)\b|\bsatisfy my pedophilia\b|\bcsam\b/,
  },
  {
    category: "illegal",
    reason: "asks for self-harm methods",
    pattern: new RegExp(
      String.raw`\b${ASK}\b.{0,40}?\b(?:kill|hang|drown|poison|shoot|hurt|cut|burn|starve|overdose|end|take)\w* ${SELF}|\b(?:commit(?:ting)? suicide|end my life|(?:sever|slit|slash|pierce|cut) (?:my|my own) (?:\w+ )?(?:artery|wrists?|veins?)|carve (?:a )?scars? into my|go out like|die like|end my life like)\b`,
    ),
  },
];

/** Lowercase, straight quotes, one space: the rules are written against this form. */
function normalise(text: string): string {
  return text
    .normalize("NFKC")
    .replace(/[\u2018\u2019\u02bc`´]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim();
}

/** The first rule an explicit request breaks, or undefined for everything else. */
export function policyRefusal(text: string): PolicyRefusal | undefined {
  const normal = normalise(text);
  if (normal.length === 0) return undefined;
  const fiction = FICTION.test(normal);
  for (const rule of rules) {
    if (rule.fictionExempt && fiction) continue;
    if (rule.unless?.test(normal)) continue;
    if (rule.pattern.test(normal)) return { category: rule.category, reason: rule.reason };
  }
  return undefined;
}

/** Throws 400 POLICY_REFUSED when any of `texts` breaks a rule: call it from a skill's `admit`, before any price. */
export function refuseByPolicy(...texts: readonly (string | undefined)[]): void {
  for (const text of texts) {
    if (text === undefined) continue;
    const refusal = policyRefusal(text);
    if (refusal) {
      throw new ApiError("POLICY_REFUSED", {
        message: `Refused by policy (${refusal.category}): the request ${refusal.reason}. Nothing was run or charged.`,
        details: { policy_category: refusal.category },
      });
    }
  }
}
