/**
 * The words small-business sites use, in the languages of the markets we crawl (German,
 * French, Italian, Spanish, Portuguese, Dutch, Finnish, Swedish, Hungarian, Polish, Czech,
 * English): what a contact or imprint link is called, and the cues around an address that
 * say whom it belongs to. Every pattern is matched against `fold`ed text (lower case, no
 * diacritics) of a short window (a link label, ≤ 400 characters of context), never a page.
 */

/** Lower case without diacritics, `ß` → `ss`, separators as spaces: "Über-uns" → "uber uns". */
export function fold(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/ß/g, "ss")
    .replace(/[øœæłđ]/g, (c) => ({ ø: "o", œ: "oe", æ: "ae", ł: "l", đ: "d" })[c]!)
    .replace(/[-_/+.]+/g, " ");
}

const words = (list: string[]) => new RegExp(`(?:^|[^a-z0-9])(?:${list.join("|")})`, "");

/** Contact pages (links, labels, paths). */
export const CONTACT_WORDS = words([
  "contact", "kontakt", "contatt", "contatti", "contacto", "contactanos", "contactenos", "contato", "fale conosco", "contacteer",
  "scrivici", "scrivimi", "scriveteci", "dove siamo", "come raggiungerci", "ecrivez", "nous joindre", "nous contacter", "nous ecrire",
  "get in touch", "reach us", "find us", "write to us", "enquir", "inquir", "say hello", "ota yhteytta", "yhteystiedot", "yhteys",
  "kapcsolat", "elerhetoseg", "kontaktujte", "kontakta", "anfahrt", "escribenos", "donde estamos", "localizacion", "iletisim",
  "napisz", "kontakty", "booking", "reservier", "prenota", "reserv", "schreiben sie uns", "schreib uns", "schreiben sie mir", "anfrage",
  "nachricht", "email us", "e mail", "mail us", "message us", "scrivimi", "escribenos", "kirjoita", "irjon", "irj nekunk",
  "hitta hit", "hitta oss", "kontakta oss", "kontakt oss", "hvor er vi", "contactos", "fale connosco", "onde estamos", "marcacao",
  "marcacoes", "marcar consulta", "agendar", "agendamento", "pedir cita", "cita previa", "termin", "terminvereinbarung",
  "rendez vous", "prendre rendez", "appuntament", "ajanvaraus", "varaa aika", "idopont", "bejelentkezes", "afspraak", "route",
  "wegbeschreibung", "how to find", "directions", "visit us", "besuchen sie uns", "come trovarci", "comment venir", "como llegar",
]);

/** Imprint / legal-notice pages: where the law puts the owner's address and email. */
export const IMPRINT_WORDS = words([
  "impressum", "imprint", "impresszum", "mentions legales", "mention legale", "informations legales", "legal notice", "legal info",
  "aviso legal", "nota legal", "note legali", "informazioni legali", "colophon", "site notice", "anbieterkennzeichnung", "offenlegung",
  "juridique", "legal", "disclaimer", "kolofon", "tietoa sivustosta",
]);

/** About / team pages: the owner's name, sometimes the inbox. */
export const ABOUT_WORDS = words([
  "about", "uber uns", "ueber uns", "wir uber uns", "a propos", "qui sommes nous", "chi siamo", "quienes somos", "sobre nosotros",
  "sobre nos", "over ons", "meista", "tietoa meista", "yritys", "rolunk", "bemutatkozas", "o nas", "o nama", "team", "equipe",
  "unser team", "das team", "storia", "historia", "geschichte", "philosophie", "unternehmen", "firma", "azienda", "entreprise",
]);

/** Privacy pages name the controller (often with the general inbox), after the better pages. */
export const PRIVACY_WORDS = words(["datenschutz", "privacy", "confidentialite", "donnees personnelles", "privacidad", "tietosuoja", "adatvedelem", "rgpd", "gdpr", "dsgvo"]);

/** Price lists and rate cards: a small business's PDF of them usually ends with its contact details. */
export const PRICE_LIST_WORDS = words(["preisliste", "preise", "price list", "pricelist", "prices", "rate card", "tarif", "listino", "lista de precios", "precios", "hinnasto", "arlista", "cennik", "prijslijst"]);

/** Links never worth a page of the budget. */
export const USELESS_PATH = /\.(?:pdf|jpe?g|png|gif|webp|svg|zip|rar|docx?|xlsx?|pptx?|mp[34]|mov|avi|ics|vcf|xml|rss|json|css|js)(?:$|\?)|\/(?:wp-(?:admin|login|json|content|includes)|feed|tag|tags|category|author|cart|checkout|warenkorb|kasse|my-account|login|logout|register|search|cdn-cgi|xmlrpc\.php|comments)(?:\/|$)|\/(?:19|20)\d\d\/\d\d?\//i;

/**
 * Cues before (or right after) an address that say it is not the business's inbox.
 * `credit`: whoever made or hosts the site, or took the photos; `privacy`: an external data
 * protection officer; `jobs`: applications; `authority`: chambers, supervisory bodies,
 * dispute resolution; `pec`: Italian certified mail, which refuses ordinary mail.
 */
export const CUES = {
  credit: words([
    "website by", "site by", "web by", "webdesign", "web design", "webdesigner", "design by", "designed by", "design and", "design &",
    "developed by", "development by", "built by", "made by", "created by", "creato da", "powered by", "hosted by", "hosting", "hoster",
    "webhosting", "provider", "webmaster", "website design", "web development", "web agency", "agentur", "umsetzung", "realisierung",
    "gestaltung", "konzept", "programmierung", "erstellt von", "erstellung", "technische betreuung", "betreuung der website",
    "bildnachweis", "bildquellen", "fotonachweis", "fotos", "fotografie", "photography", "photos by", "photo credit", "image credit",
    "credits", "credit photo", "realisation", "conception", "creation du site", "creation site", "site realise", "site cree",
    "hebergeur", "hebergement", "heberge par", "realizzazione", "realizzato da", "sito realizzato", "sito web realizzato",
    "progettazione", "sviluppo", "hosting provider", "diseno web", "diseno y desarrollo", "desarrollado por", "disenado por",
    "web realizada", "pagina web realizada", "alojamiento", "kotisivut", "verkkosivut", "sivuston toteutus", "toteutus",
    "sivut tehnyt", "verkkosivujen", "kotisivujen", "keszitette", "weboldal keszites", "honlapkeszites", "tarhely", "tarhelyszolgaltato",
    "kivitelezes", "ontwerp", "webbyra", "hemsida av", "wykonanie", "projekt i wykonanie",
  ]),
  privacy: words([
    "datenschutzbeauftragte", "datenschutz beauftragte", "beauftragte fur den datenschutz", "beauftragten fur den datenschutz",
    "data protection officer", "privacy officer", "dpo", "delegue a la protection", "dpd", "responsabile della protezione",
    "responsabile protezione dati", "rpd", "delegado de proteccion", "tietosuojavastaava", "adatvedelmi tisztviselo", "adatvedelmi felelos",
    "dsb",
  ]),
  jobs: words([
    "bewerbung", "karriere", "stellenangebot", "stellenanzeige", "offene stellen", "jobs", "job offer", "career", "vacanc", "join our team",
    "join the team", "we are hiring", "we're hiring", "recrutement", "candidature", "offre d emploi", "offres d emploi", "lavora con noi",
    "candidatura", "candidature", "offerte di lavoro", "posizioni aperte", "trabaja con nosotros", "trabaja con nosotras", "empleo",
    "rekrytointi", "tyopaikat", "avoimet tyopaikat", "tyohakemus", "allas", "allasajanlat", "karrier", "oneletrajz", "vacature", "praca",
  ]),
  authority: words([
    "aufsichtsbehorde", "zustandige kammer", "kammer", "ihk", "handwerkskammer", "landesbeauftragte", "schlichtungsstelle",
    "verbraucherschlichtung", "streitbeilegung", "supervisory authority", "regulator", "ombudsman", "cnil", "mediateur", "mediation",
    "garante", "ordine degli", "ordine dei", "camera di commercio", "colegio oficial", "agencia espanola", "consumer dispute", "odr",
    "kuluttajariita", "bekeltetesi", "felugyeleti", "kamara",
  ]),
  pec: words(["pec", "posta elettronica certificata", "posta certificata", "e mail certificata", "email certificata", "mail certificata"]),
} as const;

export type CueKind = keyof typeof CUES;

/** Cues that (re)start the business's own details: an address after them is the owner's. */
export const OWNER_CUES = words([
  "inhaber", "geschaftsfuhr", "betreiber", "anbieter", "angaben gemass", "angaben gem", "vertreten durch", "vertretungsberechtigt",
  "kontakt", "contact", "owner", "proprietor", "managing director", "titolare", "sede legale", "ragione sociale", "contatti",
  "proprietaire", "gerant", "editeur", "directeur de la publication", "responsable de la publication", "contacto", "titular",
  "propietario", "yhteystiedot", "omistaja", "yrittaja", "kapcsolat", "elerhetoseg", "tulajdonos", "uzemelteto", "ugyvezeto",
  "impressum", "imprint", "mentions legales", "aviso legal", "write to us", "email us", "e mail us", "mail us", "reach us",
  "follow us", "folgen sie uns", "folge uns", "find us on", "suivez nous",
  "seguici", "siguenos", "seuraa meita", "kovess", "kovessen", "volg ons", "besuchen sie uns", "social media",
]);

/** Labels before an owner's name in imprints: "Inhaber: Max Müller". */
export const OWNER_NAME_LABEL = /(?:inhaber(?:in)?|geschaftsfuhrer(?:in)?|geschaftsfuhrung|vertreten durch|owner|proprietor|managing director|titolare|legale rappresentante|proprietaire|gerant(?:e)?|directeur de la publication|responsable de la publication|propietari[oa]|titular|omistaja|yrittaja|tulajdonos|ugyvezeto|eigenaar|wlasciciel)\s*:?\s*/;

/** Local parts of mailboxes that are not the general inbox. */
export const SIDE_MAILBOX = /^(?:jobs?|karriere|bewerbung(?:en)?|career|careers|recruit(?:ing|ment)?|recrutement|candidature|hr|personal|lavoro|lavora|cv|empleo|rekry|rekrytointi|allas|privacy|datenschutz|dsb|dpo|rpd|gdpr|rgpd|dsgvo|data-?protection|protezionedati|webmaster|hostmaster|abuse|postmaster|presse|press|media|newsletter|unsubscribe|abmelden|buchhaltung|rechnung(?:en)?|invoices?|billing|fattur(?:e|azione)|amministrazione|accounting|legal|pec)(?:[-_.+].*)?$/i;

/** Local parts of general inboxes (a salesperson's first choice). */
export const ROLE_INBOX =
  /^(?:info|infos|information|contact|contacto|contatto|contatti|kontakt|kontakti|hello|hallo|hola|hej|moi|hei|ciao|bonjour|office|buero|buro|bureau|ufficio|oficina|toimisto|iroda|mail|email|e-mail|post|posta|team|welcome|willkommen|admin|praxis|kanzlei|cabinet|atelier|studio|reception|rezeption|receptie|empfang|recepcion|reception)(?:[-_.+][a-z0-9]{0,20})?$/i;

/** Local parts of a department's inbox: a business's, but not its general one (bookings, sales, the shop). */
export const DEPARTMENT_INBOX =
  /^(?:sales|vertrieb|verkauf|vendite|ventes|ventas|myynti|enquiries|inquiries|booking|bookings|reservation|reservations|reservierung|reservierungen|prenotazioni|prenotazione|reservas|reserva|varaus|varaukset|service|kundenservice|support|shop|store|laden|negozio|boutique|order|orders|bestellung|bestellungen|ordini|commandes|pedidos|tilaus|tilaukset|termin|termine|appuntamenti|rendezvous|citas|marcacoes|ajanvaraus|hotel|restaurant|ristorante|events?|veranstaltungen|catering|gruppen|groups|export|import|einkauf|purchasing|acquisti|achats|compras|werkstatt|officina|atelier-service)(?:[-_.+][a-z0-9]{0,20})?$/i;
