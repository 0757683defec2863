import { describe, expect, it } from "vitest";
import { REDACTED, redactSecrets } from "../src/index.js";

const R = REDACTED;

describe("redactSecrets: key/value pairs", () => {
  it.each([
    // env files, shell, query strings: KEY=value
    ["API_KEY=abc123def", `API_KEY=${R}`],
    ["GITHUB_TOKEN=corp-sso-1234 make deploy", `GITHUB_TOKEN=${R} make deploy`],
    ["export DB_PASSWORD=letmein", `export DB_PASSWORD=${R}`],
    [
      "https://api.example.com/v1?user=bob&token=xyz789&page=2",
      `https://api.example.com/v1?user=bob&token=${R}&page=2`,
    ],
    ["pwd=qwerty", `pwd=${R}`],
    // YAML, prose, config: key: value
    ["api_key: sk_live_51Habc", `api_key: ${R}`],
    ["password: hunter2", `password: ${R}`],
    ["Password: Tr0ub4dor&3", `Password: ${R}`],
    ["secret: correcthorsebatterystaple", `secret: ${R}`],
    ["  client_secret:   9f8e7d6c5b4a", `  client_secret:   ${R}`],
    ["aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", `aws_secret_access_key = ${R}`],
    ["x-api-key: 0123456789abcdef", `x-api-key: ${R}`],
    ["passphrase => 'open sesame'", `passphrase => '${R}'`],
    // quoted, JSON and code
    ['{"token": "abc", "user": "bob"}', `{"token": "${R}", "user": "bob"}`],
    ["{'apiKey': 'plain words are fine here'}", `{'apiKey': '${R}'}`],
    ['const password = "hunter2";', `const password = "${R}";`],
    ['"refresh_token":"1//0gAbC-dEf"', `"refresh_token":"${R}"`],
    ["SECRET_KEY := s3cr3t", `SECRET_KEY := ${R}`],
    // headers and URLs
    ["Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.e30.abc", `Authorization: Bearer ${R}`],
    ["authorization: Basic dXNlcjpwYXNzd29yZA==", `authorization: Basic ${R}`],
    ["curl -H 'Authorization: token 0123456789abcdef0123'", `curl -H 'Authorization: token ${R}'`],
    ["postgres://admin:s3cret-pw@db.internal:5432/app", `postgres://admin:${R}@db.internal:5432/app`],
  ])("%s", (input, expected) => {
    const out = redactSecrets(input);
    expect(out.text).toBe(expected);
    expect(out.count).toBe(1);
  });

  it.each([
    ["prose about tokens", "The token is missing from the request; please set a password."],
    ["a colon then prose", "Password: incorrect, try again. Token: GitHub"],
    ["a type", "interface Login { token: string; password: string }"],
    ["Markdown emphasis", "**Token:** paste it in the settings"],
    ["a key that only ends like one", "max_tokens: 4096 and token_count: 12 and passwordless: true"],
    ["a longer word", "tokens=5 secrets=none"],
    ["an empty value", 'password: "" and token='],
    ["a placeholder", "token: <your-token> and password: $" + "{DB_PASSWORD} and api_key: $API_KEY"],
    ["a GitHub Actions reference", "token: $" + "{{ secrets.GITHUB_TOKEN }}"],
    ["a value from code", "const token = process.env.GITHUB_TOKEN; password = getPassword(user)"],
    ["a masked value", "password: ******** and token: [REDACTED]"],
    ["a literal", "token: null, secret: false, password: none"],
    ["a short value", "token=ab"],
    ["a bearer of news", "The bearer of bad news arrived"],
    ["a URL without a password", "https://user@example.com/path and https://example.com:8080/x"],
  ])("keeps %s", (_case, input) => {
    expect(redactSecrets(input)).toEqual({ text: input, count: 0 });
  });

  it("counts a literal secret once, even inside a pair", () => {
    expect(redactSecrets("token=corp-sso-token-1234567890", ["corp-sso-token-1234567890"])).toEqual({
      text: `token=${R}`,
      count: 1,
    });
  });

  it("stays linear on hostile input", () => {
    // Long runs of what the patterns look for, with no end: each pattern's repetition is bounded.
    const hostile = ["a_".repeat(50_000), "token".repeat(20_000), `password:${" ".repeat(50_000)}`, "=".repeat(50_000)];
    for (const text of hostile) expect(redactSecrets(text).text.length).toBeGreaterThan(0);
  });
});
