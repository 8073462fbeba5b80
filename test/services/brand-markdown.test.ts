import { describe, expect, it } from "vitest";
import { humanise, languageName, renderBrandMarkdown, type BrandInput } from "../../src/services/sending/brand-markdown.js";

const EMPTY: BrandInput = {
  brandName: null,
  brandDescription: null,
  brandEmail: null,
  websiteUrl: null,
  emailLanguage: null,
  logoUrl: null,
  brandDesignSystem: {},
};

const FULL: BrandInput = {
  brandName: "Acme Dental",
  brandDescription: "Family dentistry in Vaduz since 1998.",
  brandEmail: "hello@acme-dental.example",
  websiteUrl: "https://acme-dental.example",
  emailLanguage: "de-CH",
  logoUrl: "https://acme-dental.example/logo.svg",
  brandDesignSystem: {
    voice: { tone: ["warm", "precise"], audience: "families", do: ["use first names"], dont: ["use jargon"] },
    colors: { primary: "#0a84ff", accent: { hex: "ff9f0a", usage: "buttons | links" }, ink: "near black" },
    typography: { headings: { family: "Inter", weight: 700 }, body: "Source Serif" },
    logo: { minWidth: "120px", clearSpace: "1x cap height" },
    spacing: { unit: "8px", scale: [4, 8, 16, 32] },
    imagery: { style: "bright, natural light", avoid: ["stock smiles"], crops: [{ ratio: "16:9", use: "hero" }] },
  },
};

describe("brand style guide markdown", () => {
  it("renders a placeholder for empty settings and an empty design system", () => {
    expect(renderBrandMarkdown(EMPTY)).toBe("# Brand style guide\n\nNo brand settings yet.\n");
  });

  it("renders the settings alone when the design system is empty", () => {
    expect(renderBrandMarkdown({ ...EMPTY, brandName: "Acme", emailLanguage: "en" })).toBe(
      "# Acme style guide\n\n## Brand\n\n- Name: Acme\n- Email language: English (`en`)\n",
    );
  });

  it("renders every section of a full design system, recognised and unknown keys alike", () => {
    expect(renderBrandMarkdown(FULL)).toBe(
      [
        "# Acme Dental style guide",
        "",
        "## Brand",
        "",
        "- Name: Acme Dental",
        "- Website: https://acme-dental.example",
        "- Sender email: hello@acme-dental.example",
        "- Logo: https://acme-dental.example/logo.svg",
        "- Email language: Swiss High German (`de-CH`)",
        "",
        "## Description",
        "",
        "Family dentistry in Vaduz since 1998.",
        "",
        "## Voice",
        "",
        "- Tone: warm, precise",
        "- Audience: families",
        "- Do:",
        "  - use first names",
        "- Don't:",
        "  - use jargon",
        "",
        "## Colours",
        "",
        "| Name | Value | Usage |",
        "|---|---|---|",
        "| primary | `#0A84FF` |  |",
        "| accent | `#FF9F0A` | buttons \\| links |",
        "| ink | near black |  |",
        "",
        "## Typography",
        "",
        "- Headings: Inter, weight 700",
        "- Body: Source Serif",
        "",
        "## Logo",
        "",
        "- Min width: 120px",
        "- Clear space: 1x cap height",
        "",
        "## Spacing",
        "",
        "- Unit: 8px",
        "- Scale: 4, 8, 16, 32",
        "",
        "## Imagery",
        "",
        "- Style: bright, natural light",
        "- Avoid: stock smiles",
        "- Crops:",
        "  -",
        "    - Ratio: 16:9",
        "    - Use: hero",
        "",
      ].join("\n"),
    );
  });

  it("keeps both spellings when colors and colours are both given", () => {
    const text = renderBrandMarkdown({ ...EMPTY, brandDesignSystem: { colors: { a: "#000" }, colours: { b: "#fff" } } });
    expect(text).toBe("# Brand style guide\n\n## Colours\n\n| Name | Value | Usage |\n|---|---|---|\n| a | `#000` |  |\n\n## Colours\n\n- B: #fff\n");
  });

  it("is deterministic: the same input always gives the same text", () => {
    const copy = JSON.parse(JSON.stringify(FULL)) as BrandInput;
    expect(renderBrandMarkdown(copy)).toBe(renderBrandMarkdown(FULL));
  });

  it("names languages from BCP 47 tags and humanises keys", () => {
    expect(languageName("de-CH")).toBe("Swiss High German");
    expect(languageName("fr")).toBe("French");
    expect(humanise("brandColors")).toBe("Brand colors");
    expect(humanise("line_height")).toBe("Line height");
  });
});
