import { describe, expect, it } from "vitest";
import { languageCode, otherLanguage } from "../../src/services/sending/language-guess.js";

describe("the language check of AI drafts", () => {
  it("reads codes, tags and names", () => {
    expect(languageCode("de-AT")).toBe("de");
    expect(languageCode("Deutsch")).toBe("de");
    expect(languageCode("French")).toBe("fr");
    expect(languageCode("fi")).toBeUndefined();
  });

  it("flags a text clearly in another known language, and nothing it cannot tell", () => {
    const english = "Hello {{ contact.name }}, we bake fresh bread for your café and we deliver it to you every morning.";
    const german = "Hallo {{ contact.name }}, wir backen frisches Brot für Ihr Café und liefern es Ihnen jeden Morgen vor sieben Uhr.";
    expect(otherLanguage(english, "de")).toBe("English");
    expect(otherLanguage(english, "English")).toBeUndefined();
    expect(otherLanguage(german, "de")).toBeUndefined();
    expect(otherLanguage(german, "en")).toBe("German");
    expect(otherLanguage("Hi there, fresh bread.", "de")).toBeUndefined(); // too short to tell
    expect(otherLanguage(english, "Finnish")).toBeUndefined(); // a language it does not know
  });
});
